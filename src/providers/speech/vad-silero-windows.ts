import { SILERO_CONTEXT, SILERO_WINDOW } from './vad-silero-protocol.ts';

// One stream's audio cut into Silero windows (512 samples at 16 kHz, 32 ms) waiting to be judged,
// each with the time of its first sample. Window buffers (16-bit, 1 KB) come from a pool and go
// back to it: nothing is allocated per frame once the stream has warmed up. Pushing a minute of
// audio at once is fine; a stream whose windows pile up beyond that (the model far behind real
// time) drops its oldest ones rather than grow without bound.

/** 60 s of audio waiting (under 2 MB); beyond that the oldest window is dropped. */
const MAX_WAITING = 1875;
const SAMPLE_MS = 1000 / 16000;

export interface SileroWindows {
  /** Appends the first `count` of `samples` (16 kHz); `at` is the time (ms) of `samples[0]`. */
  write(samples: Int16Array, count: number, at: number): void;
  /** Complete windows waiting. */
  readonly count: number;
  /** Time of the oldest waiting window's first sample. */
  readonly headAt: number;
  /** Peak absolute sample of the oldest waiting window. */
  headPeak(): number;
  /**
   * Removes the oldest window; with `into`, first copies the model's input there (the context,
   * i.e. the end of the window before, then the window: SILERO_INPUT floats from `offset`).
   */
  take(into: Float32Array | null, offset: number): void;
  /** Windows dropped because too many were waiting. */
  readonly dropped: number;
}

export function createSileroWindows(): SileroWindows {
  const pool: Int16Array[] = [];
  const waiting: Int16Array[] = [];
  const times: number[] = [];
  let head = 0;
  const context = new Float32Array(SILERO_CONTEXT);
  let current: Int16Array = new Int16Array(SILERO_WINDOW);
  let fill = 0;
  let currentAt = 0;
  let dropped = 0;

  const release = () => {
    pool.push(waiting[head]!);
    head += 1;
    // Compact now and then rather than shift() (O(n) per call).
    if (head >= 64 && head * 2 >= waiting.length) {
      waiting.splice(0, head);
      times.splice(0, head);
      head = 0;
    }
  };

  return {
    get count() {
      return waiting.length - head;
    },
    get headAt() {
      return times[head] ?? 0;
    },
    get dropped() {
      return dropped;
    },
    headPeak() {
      const window = waiting[head];
      if (!window) return 0;
      let peak = 0;
      for (let i = 0; i < SILERO_WINDOW; i += 1) {
        const s = window[i]!;
        const magnitude = s < 0 ? -s : s;
        if (magnitude > peak) peak = magnitude;
      }
      return peak;
    },
    write(samples, count, at) {
      const n = Math.min(count, samples.length);
      let i = 0;
      while (i < n) {
        if (fill === 0) currentAt = at + i * SAMPLE_MS;
        const k = Math.min(SILERO_WINDOW - fill, n - i);
        const window = current;
        for (let j = 0; j < k; j += 1) window[fill + j] = samples[i + j]!;
        fill += k;
        i += k;
        if (fill < SILERO_WINDOW) break;
        waiting.push(window);
        times.push(currentAt);
        current = pool.pop() ?? new Int16Array(SILERO_WINDOW);
        fill = 0;
        if (waiting.length - head > MAX_WAITING) {
          release();
          dropped += 1;
        }
      }
    },
    take(into, offset) {
      const window = waiting[head];
      if (!window) return;
      if (into) {
        into.set(context, offset);
        const from = offset + SILERO_CONTEXT;
        for (let i = 0; i < SILERO_WINDOW; i += 1) into[from + i] = window[i]! / 32768;
      }
      const tail = SILERO_WINDOW - SILERO_CONTEXT;
      for (let i = 0; i < SILERO_CONTEXT; i += 1) context[i] = window[tail + i]! / 32768;
      release();
    },
  };
}
