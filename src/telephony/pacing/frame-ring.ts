import { SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import {
  FRAME_SAMPLES,
  IN_FLIGHT,
  OUT_SLOTS,
  READ,
  RING_BYTES,
  WIRE_COUNT,
  WIRE_SLOTS,
  WRITE,
  ringView,
  type RingView,
} from './ring-layout.ts';

// One leg's outgoing audio as its call sees it: play() queues, the pacer's beat sends (from a
// worker or from the carrier's own beat, see ring-layout.ts), clear() stops at once and the played
// position counts exactly the samples that left. Frames beyond the shared ring's second wait here
// and move in as the beat frees slots (`fill()`).

const SAMPLES_PER_MS = SESSION_RATE / 1000;

/** A beat as it left, for the far end of a simulated line (or a test). */
export interface SentBeat {
  /** The frame that left, valid only during the call; null when the beat sent nothing. */
  readonly frame: AudioFrame | null;
  /** The beat's time on the pacer's 20 ms grid. */
  readonly gridAt: number;
  /** When it left, on the pacer's clock. */
  readonly sentAt: number;
}

/** Each of the first `count` frames a step further down to silence (the fade of clear()). */
function fadeOut(frames: Int16Array[], count: number): Int16Array[] {
  return frames.slice(0, count).map((frame, i) => {
    const faded = new Int16Array(frame.length);
    const n = frame.length * count;
    for (let j = 0; j < frame.length; j += 1) {
      faded[j] = Math.round((frame[j] ?? 0) * (1 - (i * frame.length + j) / n));
    }
    return faded;
  });
}

/**
 * Encodes the frame just written to `out` slot `slot` (FRAME_SAMPLES or fewer samples) into that
 * slot's bytes, for a sender that writes them to a socket as they are (ring-layout.ts SocketView).
 * Called in queue order for every frame that enters the ring, fades of clear() included.
 */
export type SlotEncoder = (frame: Int16Array, slot: number) => void;

export interface FrameRingOptions {
  encode?: SlotEncoder;
}

export class FrameRing {
  readonly buffer = new SharedArrayBuffer(RING_BYTES);
  readonly view: RingView = ringView(this.buffer);
  readonly #encode: SlotEncoder | null;
  /** Frames not yet in the ring, FRAME_SAMPLES or fewer each. */
  #waiting: Int16Array[] = [];
  #waitingHead = 0;
  #waitingSamples = 0;
  /** Per `out` index (mod OUT_SLOTS + 1): the samples written up to and including it. */
  readonly #endAt = new Float64Array(OUT_SLOTS + 1);
  #written = 0;
  #dropped = 0;
  #heard = 0;
  #idleWaiters: (() => void)[] = [];
  /** Reused for every beat heard: receivers must not keep it. */
  readonly #beat: { frame: AudioFrame | null; gridAt: number; sentAt: number } = {
    frame: null,
    gridAt: 0,
    sentAt: 0,
  };

  constructor(options: FrameRingOptions = {}) {
    this.#encode = options.encode ?? null;
  }

  /** Queues a frame (any length at SESSION_RATE; longer ones take several slots). */
  play(frame: AudioFrame): void {
    const { samples } = frame;
    for (let at = 0; at < samples.length; at += FRAME_SAMPLES) {
      const part =
        at === 0 && samples.length <= FRAME_SAMPLES ? samples : samples.subarray(at, at + FRAME_SAMPLES);
      this.#waiting.push(part);
      this.#waitingSamples += part.length;
    }
    this.fill();
  }

  /** Moves waiting frames into the ring as far as its free slots go. */
  fill(): void {
    const { control, samples, outLengths } = this.view;
    if (this.#waitingHead >= this.#waiting.length) return;
    const inFlight = Atomics.load(control, IN_FLIGHT);
    const read = Atomics.load(control, READ);
    const oldest = inFlight > 0 ? Math.min(read, inFlight - 1) : read;
    let write = Atomics.load(control, WRITE);
    while (this.#waitingHead < this.#waiting.length && write < oldest + OUT_SLOTS) {
      const frame = this.#waiting[this.#waitingHead]!;
      this.#waitingHead += 1;
      this.#waitingSamples -= frame.length;
      const slot = write % OUT_SLOTS;
      samples.set(frame, slot * FRAME_SAMPLES);
      outLengths[slot] = frame.length;
      // Before WRITE moves: the sender reads the slot's bytes only once it may claim the slot.
      this.#encode?.(frame, slot);
      this.#written += frame.length;
      this.#endAt[write % (OUT_SLOTS + 1)] = this.#written;
      write += 1;
      Atomics.store(control, WRITE, write);
    }
    if (this.#waitingHead >= this.#waiting.length) {
      this.#waiting = [];
      this.#waitingHead = 0;
    }
  }

  /**
   * Drops everything queued: the frame leaving now is the last. With `fadeFrames` > 0, that many of
   * the dropped frames are queued again, fading out.
   */
  clear(fadeFrames = 0): void {
    const { control, samples, outLengths } = this.view;
    const write = Atomics.load(control, WRITE);
    let read = Atomics.load(control, READ);
    // The sender may claim a frame meanwhile: whoever swaps READ first has it.
    for (;;) {
      const seen = Atomics.compareExchange(control, READ, read, write);
      if (seen === read) break;
      read = seen;
    }
    const dropped: Int16Array[] = [];
    if (fadeFrames > 0) {
      for (let i = read; i < write && dropped.length < fadeFrames; i += 1) {
        const slot = i % OUT_SLOTS;
        const from = slot * FRAME_SAMPLES;
        dropped.push(samples.slice(from, from + (outLengths[slot] ?? 0)));
      }
      for (let i = this.#waitingHead; i < this.#waiting.length && dropped.length < fadeFrames; i += 1) {
        dropped.push(this.#waiting[i]!);
      }
    }
    this.#dropped += this.#endOf(write) - this.#endOf(read);
    this.#waiting = [];
    this.#waitingHead = 0;
    this.#waitingSamples = 0;
    for (const frame of fadeOut(dropped, fadeFrames)) {
      this.#waiting.push(frame);
      this.#waitingSamples += frame.length;
    }
    this.fill();
    this.#wakeIfIdle();
  }

  /** Resolves once nothing is queued (seen as beats are heard, and on clear()), or on close(). */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** The leg ended: drops what is queued and lets every waiter go. */
  close(): void {
    this.clear();
    for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  #wakeIfIdle(): void {
    if (this.#idleWaiters.length > 0 && this.idle) for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  /** Samples written up to `out` index `index` (exclusive). */
  #endOf(index: number): number {
    return index === 0 ? 0 : (this.#endAt[(index - 1) % (OUT_SLOTS + 1)] ?? 0);
  }

  /** Milliseconds of audio that has left (or is leaving now). */
  get playedMs(): number {
    return (this.#endOf(Atomics.load(this.view.control, READ)) - this.#dropped) / SAMPLES_PER_MS;
  }

  /** Milliseconds of audio queued and not yet claimed by the beat. */
  get queuedMs(): number {
    const { control } = this.view;
    const inRing = this.#endOf(Atomics.load(control, WRITE)) - this.#endOf(Atomics.load(control, READ));
    return (inRing + this.#waitingSamples) / SAMPLES_PER_MS;
  }

  /** Nothing queued: every frame has left or was cleared. */
  get idle(): boolean {
    const { control } = this.view;
    return this.#waitingSamples === 0 && Atomics.load(control, READ) >= Atomics.load(control, WRITE);
  }

  /**
   * Hands every beat sent since the last call to `heard`, oldest first, then refills the ring.
   * Beats older than the `wire` ring holds are skipped (the line dropped them). Returns how many.
   * Without `heard` (a sender that needs nothing back) it only counts them: no frame is copied.
   */
  hear(heard?: (beat: SentBeat) => void): number {
    const { control, samples, wireLengths, wireTimes } = this.view;
    const count = Atomics.load(control, WIRE_COUNT);
    if (!heard) {
      const n = count - this.#heard;
      this.#heard = count;
      this.fill();
      this.#wakeIfIdle();
      return n;
    }
    // A slot is rewritten WIRE_SLOTS beats later: keep a beat's margin to read it whole.
    if (count - this.#heard > WIRE_SLOTS - 1) this.#heard = count - (WIRE_SLOTS - 1);
    let n = 0;
    const beat = this.#beat;
    for (; this.#heard < count; this.#heard += 1, n += 1) {
      const wire = this.#heard % WIRE_SLOTS;
      const length = wireLengths[wire] ?? 0;
      beat.gridAt = wireTimes[wire * 2] ?? 0;
      beat.sentAt = wireTimes[wire * 2 + 1] ?? 0;
      if (length > 0) {
        const from = (OUT_SLOTS + wire) * FRAME_SAMPLES;
        // A copy: far ends may keep what they hear past the slot's reuse.
        beat.frame = {
          samples: samples.slice(from, from + length),
          sampleRate: SESSION_RATE,
          at: beat.gridAt,
        };
      } else {
        beat.frame = null;
      }
      heard(beat);
    }
    this.fill();
    this.#wakeIfIdle();
    return n;
  }
}
