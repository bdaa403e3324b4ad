import { SESSION_RATE, samplesPerFrame, type AudioFrame } from '../../media/index.ts';
import {
  FrameRing,
  sendBeat,
  type FramePacer,
  type FrameTick,
  type FrameTicker,
  type SentBeat,
} from '../pacing/index.ts';
import type { CallLeg, LegEndReason } from '../types.ts';
import type { SimLogEntry } from './text-leg.ts';

// A simulated call leg that carries audio, seen from both ends. On each 20 ms beat of the
// carrier it delivers one frame of the far end's speech (or silence) to our receiver. Our audio
// leaves through a frame ring on the pacer's beat (a worker's, or this same beat's), one frame or
// silence per beat, and the far end's ears get each beat as it left, so both sides hear each
// other in real time and `playedMs` is exactly what has left for the far end.

/** How the simulated far end acts on an audio leg. */
export interface RemoteAudioEnd {
  /** Aborted once the leg has ended. */
  readonly signal: AbortSignal;
  /** Queues one frame of the far end's speech (SESSION_RATE) for delivery to our side. */
  send(frame: AudioFrame): void;
  /** Resolves once everything sent so far has been delivered (or the leg ended). */
  delivered(): Promise<void>;
  /** A key pressed at the far end, delivered with the next frame. */
  press(digit: string): void;
  /** Ends the leg (first end wins). */
  end(reason: LegEndReason, error?: unknown): void;
  /**
   * Every frame our side plays, one per beat of the pacer (silence when we play nothing), with
   * when it left.
   */
  onAudio(handler: (frame: AudioFrame, sent: SentBeat) => void): void;
  /** Keys our side sends. */
  onDtmf(handler: (digits: string) => void): void;
  /** Writes a line to the leg's log (what each side said, as text, for tests and debugging). */
  log(entry: Omit<SimLogEntry, 'at'>): void;
}

/** The audio leg our side gets: the port plus what the sim records. */
export interface SimAudioLeg extends CallLeg {
  readonly log: readonly SimLogEntry[];
  readonly endReason: LegEndReason | null;
  readonly error: unknown;
  /** Where a transfer sent the call, if one did. */
  readonly transferredTo: string | null;
}

const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);
const SILENCE = new Int16Array(FRAME_SAMPLES);

/** A queue of frames read by index (no shift() per beat). */
class FrameQueue {
  #frames: AudioFrame[] = [];
  #head = 0;
  push(frame: AudioFrame) {
    this.#frames.push(frame);
  }
  shift(): AudioFrame | undefined {
    const frame = this.#frames[this.#head];
    if (!frame) return undefined;
    this.#head += 1;
    if (this.#head === this.#frames.length) {
      this.#frames = [];
      this.#head = 0;
    }
    return frame;
  }
  take(): AudioFrame[] {
    const rest = this.#frames.slice(this.#head);
    this.#frames = [];
    this.#head = 0;
    return rest;
  }
  get empty() {
    return this.#head >= this.#frames.length;
  }
}

export function createSimAudioLeg(
  sid: string,
  ticker: FrameTicker,
  pacer: FramePacer,
  now: () => number,
): { leg: SimAudioLeg; remote: RemoteAudioEnd } {
  const log: SimLogEntry[] = [];
  const incoming = new FrameQueue();
  const outgoing = new FrameRing();
  const keys: string[] = [];
  const stop = new AbortController();
  let receiver: Parameters<CallLeg['receive']>[0] | null = null;
  let ears: (frame: AudioFrame, sent: SentBeat) => void = () => {};
  let dtmfHandler: (digits: string) => void = () => {};
  let deliveredWaiters: (() => void)[] = [];
  let endReason: LegEndReason | null = null;
  let error: unknown;
  let transferredTo: string | null = null;
  let resolveEnded: (reason: LegEndReason) => void = () => {};
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  // Reused for every beat with nothing to deliver: receivers must not keep frames.
  const silenceIn = { samples: SILENCE, sampleRate: SESSION_RATE, at: 0 } as {
    -readonly [K in keyof AudioFrame]: AudioFrame[K];
  };
  const silenceOut = { ...silenceIn };
  const hear = (sent: SentBeat) => {
    if (sent.frame) return ears(sent.frame, sent);
    silenceOut.at = sent.gridAt;
    ears(silenceOut, sent);
  };

  const wake = (waiters: (() => void)[]) => {
    for (const resolve of waiters) resolve();
  };

  const beat: FrameTick = {
    send(at) {
      if (endReason) return;
      if (pacer.mode === 'caller') sendBeat(outgoing.view, at, now());
      outgoing.hear(hear);
    },
    deliver(at) {
      if (endReason) return;
      const key = keys.shift();
      if (key !== undefined) receiver?.dtmf(key, at);
      const theirs = incoming.shift();
      if (theirs) receiver?.audio({ samples: theirs.samples, sampleRate: theirs.sampleRate, at });
      else {
        silenceIn.at = at;
        receiver?.audio(silenceIn);
      }
      if (incoming.empty && deliveredWaiters.length > 0) {
        const waiters = deliveredWaiters;
        deliveredWaiters = [];
        wake(waiters);
      }
    },
  };
  ticker.add(beat);
  pacer.add(outgoing);

  function end(reason: LegEndReason, cause?: unknown) {
    if (endReason) return;
    endReason = reason;
    error = cause;
    ticker.delete(beat);
    pacer.delete(outgoing);
    outgoing.close();
    incoming.take();
    wake(deliveredWaiters.splice(0));
    stop.abort(new Error(`call leg ended: ${reason}`));
    resolveEnded(reason);
  }

  const leg: SimAudioLeg = {
    sid,
    ended,
    get log() {
      return log;
    },
    get endReason() {
      return endReason;
    },
    get error() {
      return error;
    },
    get transferredTo() {
      return transferredTo;
    },
    receive(next) {
      receiver = next;
    },
    play(frame) {
      if (!endReason) outgoing.play(frame);
    },
    clear(fadeFrames = 0) {
      outgoing.clear(fadeFrames);
    },
    get playedMs() {
      return outgoing.playedMs;
    },
    get queuedMs() {
      return outgoing.queuedMs;
    },
    drained() {
      return endReason ? Promise.resolve() : outgoing.whenIdle();
    },
    async sendDtmf(digits) {
      if (endReason) return;
      log.push({ at: now(), from: 'local', text: `[dtmf ${digits}]` });
      dtmfHandler(digits);
    },
    async transfer(to) {
      if (endReason) throw new Error('the call has ended');
      transferredTo = to;
      log.push({ at: now(), from: 'local', text: `[transfer ${to}]` });
      end('local_hangup');
    },
    async hangup() {
      end('local_hangup');
    },
  };

  const remote: RemoteAudioEnd = {
    signal: stop.signal,
    send(frame) {
      if (!endReason) incoming.push(frame);
    },
    delivered() {
      if (endReason || incoming.empty) return Promise.resolve();
      return new Promise<void>((resolve) => deliveredWaiters.push(resolve));
    },
    press(digit) {
      if (!endReason) keys.push(digit);
    },
    end,
    onAudio(handler) {
      ears = handler;
    },
    onDtmf(handler) {
      dtmfHandler = handler;
    },
    log(entry) {
      log.push({ at: now(), ...entry });
    },
  };

  return { leg, remote };
}
