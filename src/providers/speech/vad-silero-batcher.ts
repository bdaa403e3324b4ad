import { SILERO_INPUT, SILERO_MAX_BATCH, SILERO_STATE } from './vad-silero-protocol.ts';
import type { SileroRunner } from './vad-silero-runner.ts';

// Runs Silero windows of every stream of the process in batches. The model is tiny, so a run is
// mostly fixed cost: one run of 300 windows costs about a third of 300 runs of one. A stream's
// windows depend on each other (the model's state), so a batch holds at most one window per
// stream; while a batch runs (in the worker thread) the next one fills up. The batch is written
// straight into the buffers shared with the worker: no allocation per window.

const STATE_HALF = SILERO_STATE / 2;

/** A stream with a window waiting to be judged. */
export interface SileroJob {
  /** The stream's model state, read before the run and replaced after it. */
  readonly state: Float32Array;
  /** Copies the window (context first, SILERO_INPUT floats) to `into` at `offset`. */
  fill(into: Float32Array, offset: number): void;
  /** The window's speech probability; the state has been updated. */
  judged(probability: number): void;
  failed(error: unknown): void;
}

export interface SileroBatcher {
  /** Queues one window of `job`; enqueue again after `judged` for the next one. */
  enqueue(job: SileroJob): void;
  /** Runs and windows judged so far. */
  readonly stats: { runs: number; windows: number };
}

export function createSileroBatcher(runner: SileroRunner): SileroBatcher {
  const { input, state, probabilities } = runner;
  let ready: SileroJob[] = [];
  let running = false;
  const stats = { runs: 0, windows: 0 };

  async function runBatch(batch: SileroJob[]): Promise<void> {
    const n = batch.length;
    // The state tensor is [2, n, 128]: layer-major, so each stream's two halves are apart.
    for (let b = 0; b < n; b += 1) {
      const job = batch[b]!;
      job.fill(input, b * SILERO_INPUT);
      const own = job.state;
      const first = b * STATE_HALF;
      const second = (n + b) * STATE_HALF;
      for (let k = 0; k < STATE_HALF; k += 1) {
        state[first + k] = own[k]!;
        state[second + k] = own[STATE_HALF + k]!;
      }
    }
    await runner.run(n);
    stats.runs += 1;
    stats.windows += n;
    for (let b = 0; b < n; b += 1) {
      const own = batch[b]!.state;
      const first = b * STATE_HALF;
      const second = (n + b) * STATE_HALF;
      for (let k = 0; k < STATE_HALF; k += 1) {
        own[k] = state[first + k]!;
        own[STATE_HALF + k] = state[second + k]!;
      }
    }
    // Only now: `judged` may enqueue the stream's next window, which must see the new state.
    for (let b = 0; b < n; b += 1) batch[b]!.judged(Math.min(1, Math.max(0, probabilities[b]!)));
  }

  async function loop(): Promise<void> {
    running = true;
    try {
      while (ready.length > 0) {
        const batch = ready.length <= SILERO_MAX_BATCH ? ready : ready.slice(0, SILERO_MAX_BATCH);
        ready = ready.length <= SILERO_MAX_BATCH ? [] : ready.slice(SILERO_MAX_BATCH);
        try {
          await runBatch(batch);
        } catch (err) {
          for (const job of batch) job.failed(err);
        }
      }
    } finally {
      running = false;
    }
  }

  return {
    stats,
    enqueue(job) {
      ready.push(job);
      if (!running) void loop();
    },
  };
}
