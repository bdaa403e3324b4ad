import type { Clock } from '../core/index.ts';
import { samplesPerFrame, type AudioFrame, type SampleRate } from '../media/index.ts';
import { SpeechError, type STT, type STTStream, type VAD, type VADStream } from '../providers/index.ts';
import { COMPLETE_FACTOR, endpointDelayMs, PATIENCE_MS } from './endpointing.ts';
import { PRE_ROLL_MS, STT_FINAL_TIMEOUT_MS, VAD_LAG_MS, VAD_MIN_SILENCE_MS } from './limits.ts';
import { createPitchTracker, type Contour } from './pitch.ts';
import type { PatienceLevel } from './settings.ts';
import type { Timers } from './timers.ts';

// The caller's side of the call: every frame goes to the VAD; while the caller speaks (from a
// short pre-roll before VAD's speech start until endpointing flushes) frames also go to the STT.
// After VAD's speech end, endpointing waits the patience delay, then flushes the STT; the final
// is the caller's turn. A recognizer without partials is flushed at the speech end instead, so the
// wait can be decided on the words (endpointing.ts) while it runs; the turn is handed out when
// the wait is over. When the caller speaks again before that turn is out (during the wait, or
// before the final arrives), the pieces merge into one turn. The frame handler only pushes and
// counts; VAD events and STT results are read by two loops off the media path.
// The caller's pitch is tracked while they speak: once a line they finished ended on a falling
// pitch, a later pause on a level pitch holds the turn (the complete line's short wait is not
// used there), since this caller marks the end of a line (pitch.ts, endpointing.ts).

export interface HeardTurn {
  text: string;
  /** VAD speech start of the turn's first utterance. */
  speechStartAt: number;
  /** VAD speech end of the turn's last utterance. */
  endOfSpeechAt: number;
  endpointAt: number;
  sttFinalAt: number;
  /** The caller's pitch at the turn's last speech end (pitch.ts). */
  pitchAtEnd: Contour;
}

export interface ListenerEvents {
  speechStart(at: number): void;
  speechEnd(at: number): void;
  partial(text: string): void;
  turn(turn: HeardTurn): void;
  /** An utterance ended with no words (noise, a cough): nothing pending any more. */
  nothing(): void;
  failure(err: Error): void;
}

export interface ListenerOptions {
  vad: VAD;
  stt: STT;
  clock: Clock;
  timers: Timers;
  patience: PatienceLevel;
  keywords: string[];
  language?: string;
  signal: AbortSignal;
  events: ListenerEvents;
}

export interface Listener {
  /** One frame from the leg: cheap, synchronous. Returns false for a frame it could not use. */
  frame(frame: AudioFrame): boolean;
  /** The caller is speaking (VAD). */
  readonly speaking: boolean;
  /** The last frame was speech (VAD probability); false in a pause VAD has not yet confirmed. */
  readonly voiced: boolean;
  /** Speech is in progress or a turn is on its way (waiting, flushing, merging). */
  readonly busy: boolean;
  /** Text heard but not yet handed out as a turn (finals plus the last partial). */
  pendingText(): string;
  /** Ends the utterance in progress now: flushes the STT without waiting for the pause. */
  flushNow(): void;
  /**
   * The caller went on after a reply had started (endpointing cut them off): for the rest of the
   * call a line that reads as complete waits the whole patience delay, not half of it.
   */
  callerPausesMidLine(): void;
  /** Resolves once no STT final is outstanding. */
  finalsIn(): Promise<void>;
  /** Milliseconds of caller speech so far (VAD). */
  speechMs(now: number): number;
  readonly droppedFrames: number;
  close(): void;
}

const RATES: readonly number[] = [8000, 16000, 24000, 48000];
const RING_FRAMES = Math.ceil((PRE_ROLL_MS + VAD_LAG_MS) / 20) + 2;

function usable(frame: AudioFrame): boolean {
  return (
    frame !== null &&
    typeof frame === 'object' &&
    frame.samples instanceof Int16Array &&
    RATES.includes(frame.sampleRate) &&
    frame.samples.length === samplesPerFrame(frame.sampleRate as SampleRate) &&
    Number.isFinite(frame.at)
  );
}

export function createListener(options: ListenerOptions): Listener {
  const { clock, timers, events } = options;
  const vad: VADStream = options.vad.stream({ minSilenceMs: VAD_MIN_SILENCE_MS });
  const stt: STTStream = options.stt.stream({
    signal: options.signal,
    ...(options.keywords.length > 0 ? { keywords: options.keywords } : {}),
    ...(options.language ? { language: options.language } : {}),
  });

  // Pre-roll: the latest frames, so the STT gets the speech from just before VAD noticed it, and
  // every frame since (VAD's speech start is read late after a burst: VAD_LAG_MS). A leg's reused
  // silence frame is kept once, at its latest time: it carries nothing for the STT.
  const ring: (AudioFrame | undefined)[] = new Array<AudioFrame | undefined>(RING_FRAMES);
  let ringNext = 0;
  let streaming = false;
  let lastPushedAt = -Infinity;
  let pushedSinceFlush = false;

  let speaking = false;
  let speechStartedAt = 0;
  let speechTotalMs = 0;
  let dropped = 0;
  let closed = false;

  let cancelEndpoint: (() => void) | null = null;
  /** Without partials: the speech end whose wait is decided once its final is in. */
  let waitingOnFinalSince: number | null = null;
  const earlyFlush = !options.stt.partials;
  let awaitingFinals = 0;
  let cancelFinalWatch: (() => void) | null = null;
  let lastPartial = '';
  let pending: string[] = [];
  const finalWaiters: (() => void)[] = [];
  const marks = { endOfSpeechAt: 0, endpointAt: 0 };
  /** The first speech start since the last turn was handed out (null: none yet). */
  let lineStartAt: number | null = null;
  const pitch = createPitchTracker();
  /** The pitch contour at the latest speech end. */
  let contour: Contour = 'unknown';
  /** A line this caller finished (handed out as a turn) ended on a falling pitch. */
  let callerFallsAtEnds = false;

  const fail = (err: Error) => {
    if (!closed) events.failure(err);
  };

  function push(frame: AudioFrame) {
    stt.push(frame);
    lastPushedAt = frame.at;
    pushedSinceFlush = true;
  }

  function startStreaming(from: number) {
    if (streaming) return;
    for (let i = 0; i < RING_FRAMES; i += 1) {
      const frame = ring[(ringNext + i) % RING_FRAMES];
      if (frame && frame.at + 20 > from && frame.at > lastPushedAt) push(frame);
    }
    streaming = true;
  }

  function pendingTurnText(): string {
    return pending.join(' ').replace(/\s+/g, ' ').trim();
  }

  function maybeHandOut() {
    if (speaking || cancelEndpoint || awaitingFinals > 0) return;
    const text = pendingTurnText();
    pending = [];
    const speechStartAt = lineStartAt ?? marks.endOfSpeechAt;
    lineStartAt = null;
    if (text === '') {
      events.nothing();
      return;
    }
    if (contour === 'fall') callerFallsAtEnds = true;
    events.turn({
      text,
      speechStartAt,
      endOfSpeechAt: marks.endOfSpeechAt,
      endpointAt: marks.endpointAt,
      sttFinalAt: clock.now(),
      pitchAtEnd: contour,
    });
  }

  function endpoint() {
    cancelEndpoint = null;
    waitingOnFinalSince = null;
    marks.endpointAt = clock.now();
    if (!flush()) maybeHandOut();
  }

  /** Ends the STT's utterance; false when nothing was pushed since the last flush. */
  function flush(): boolean {
    streaming = false;
    if (!pushedSinceFlush) return false;
    pushedSinceFlush = false;
    awaitingFinals += 1;
    stt.flush();
    if (!cancelFinalWatch) watchFinal();
    return true;
  }

  /** A complete line's share of the patience wait (1 once the caller was cut off). */
  let completeFactor = COMPLETE_FACTOR;

  /** Waits out the endpoint delay counted from the speech end at `endAt`. */
  function scheduleEndpoint(endAt: number) {
    // Without partials this utterance's words come with its final: until then, the plain wait.
    const delay =
      earlyFlush && awaitingFinals > 0
        ? PATIENCE_MS[options.patience]
        : endpointDelayMs(
            options.patience,
            lastPartial || pendingTurnText(),
            earlyFlush ? 'final' : 'partial',
            completeFactor,
            callerFallsAtEnds && contour === 'level',
          );
    const remaining = delay - (clock.now() - endAt);
    cancelEndpoint?.();
    cancelEndpoint = null;
    if (remaining <= 0) endpoint();
    else cancelEndpoint = timers.after(remaining, endpoint);
  }

  /** Fails the call when a flush gets no final in time (the recognizer stalled). */
  function watchFinal() {
    cancelFinalWatch = timers.after(STT_FINAL_TIMEOUT_MS, () => {
      cancelFinalWatch = null;
      fail(
        new SpeechError(
          `the speech recognizer (${options.stt.name}) gave no final result ${STT_FINAL_TIMEOUT_MS / 1000} s after the end of speech`,
          'stt_failed',
          true,
        ),
      );
    });
  }

  async function readVad() {
    try {
      for await (const event of vad.events) {
        if (closed) return;
        if (event.kind === 'speech_start') {
          speaking = true;
          speechStartedAt = event.at;
          lineStartAt ??= event.at;
          cancelEndpoint?.();
          cancelEndpoint = null;
          waitingOnFinalSince = null;
          startStreaming(event.at - PRE_ROLL_MS);
          events.speechStart(event.at);
        } else {
          speaking = false;
          speechTotalMs += Math.max(0, event.speechMs);
          marks.endOfSpeechAt = event.at;
          contour = pitch.contour();
          events.speechEnd(event.at);
          if (closed) return;
          if (earlyFlush && flush()) waitingOnFinalSince = event.at;
          scheduleEndpoint(event.at);
        }
      }
    } catch (err) {
      fail(new SpeechError(`voice activity detection failed: ${String(err)}`, 'vad_failed', false, err));
    }
  }

  async function readStt() {
    try {
      for await (const result of stt.results) {
        if (closed) return;
        if (result.kind === 'partial') {
          lastPartial = result.text;
          events.partial(result.text);
          // The recognizer says the speaker finished: no need to wait out the patience.
          if (result.endOfUtterance && !speaking && cancelEndpoint) {
            cancelEndpoint();
            endpoint();
          }
          continue;
        }
        awaitingFinals = Math.max(0, awaitingFinals - 1);
        cancelFinalWatch?.();
        cancelFinalWatch = null;
        lastPartial = '';
        if (result.text.trim()) pending.push(result.text.trim());
        if (awaitingFinals > 0) watchFinal();
        else for (const wake of finalWaiters.splice(0)) wake();
        // The words of a flush made at the speech end are in: the wait can now be decided on them.
        // (The endpoint then hands the turn out, now or when the wait is over.)
        if (waitingOnFinalSince !== null && awaitingFinals === 0 && cancelEndpoint && !speaking)
          scheduleEndpoint(waitingOnFinalSince);
        else maybeHandOut();
      }
      if (!closed) fail(new SpeechError('the speech recognizer stopped', 'stt_failed', true));
    } catch (err) {
      const error =
        err instanceof SpeechError
          ? err
          : new SpeechError(`the speech recognizer failed: ${String(err)}`, 'stt_failed', false, err);
      fail(error);
    }
  }

  void readVad();
  void readStt();

  return {
    frame(frame) {
      if (closed) return false;
      if (!usable(frame)) {
        dropped += 1;
        return false;
      }
      try {
        vad.push(frame);
        ring[ringNext] = frame;
        ringNext = (ringNext + 1) % RING_FRAMES;
        if (streaming) {
          push(frame);
          pitch.frame(frame);
        }
      } catch (err) {
        fail(new SpeechError(`speech input failed: ${String(err)}`, 'vad_failed', false, err));
      }
      return true;
    },
    get speaking() {
      return speaking;
    },
    get voiced() {
      return vad.probability >= 0.5;
    },
    get busy() {
      return speaking || cancelEndpoint !== null || awaitingFinals > 0 || pending.length > 0;
    },
    pendingText() {
      return [pendingTurnText(), lastPartial].filter(Boolean).join(' ');
    },
    flushNow() {
      if (closed) return;
      cancelEndpoint?.();
      endpoint();
    },
    callerPausesMidLine() {
      completeFactor = 1;
    },
    finalsIn() {
      if (awaitingFinals === 0 || closed) return Promise.resolve();
      return new Promise<void>((resolve) => finalWaiters.push(resolve));
    },
    speechMs(now) {
      return speechTotalMs + (speaking ? Math.max(0, now - speechStartedAt) : 0);
    },
    get droppedFrames() {
      return dropped;
    },
    close() {
      if (closed) return;
      closed = true;
      for (const wake of finalWaiters.splice(0)) wake();
      cancelEndpoint?.();
      cancelFinalWatch?.();
      vad.close();
      stt.close();
    },
  };
}
