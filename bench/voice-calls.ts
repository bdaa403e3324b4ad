// The call harness of the `voice` case: N simulated voice calls in this process, as Parley runs
// them. One sim carrier in audio mode (one shared 20 ms beat for every leg), a far end that
// speaks and hears data speech (exact words through real frames), and on our side `talk()` with
// the speech providers given: the whole media path runs for real, every frame on the beat.
//
// The sim carries 16-bit PCM and converts nothing, so the harness does G.711 mu-law at the edge
// itself: each frame delivered to the session is mu-law encoded and decoded first, and so is each
// frame the leg sends to the far end (at 16 kHz: no resampling to 8 kHz, see voice.ts).
//
// It measures from outside the sim, inside the beat: the far end's ears are called on every beat
// with the frame the leg sends, and the session's receiver with the frame delivered, whose `at` is
// the beat's time on the 20 ms grid. So each frame sent is timed against its grid slot, a beat
// that sends nothing between two frames of one agent line is a playout underrun, and the first
// frame of each reply is timed when it really leaves (the leg's played position moves).
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConversationSession } from '../src/conversation/index.ts';
import { systemClock, type Clock } from '../src/core/index.ts';
import {
  dataSpeechFrames,
  mulawDecodeInto,
  mulawEncodeInto,
  type AudioFrame,
  type MediaLeg,
  wrapLeg,
} from '../src/media/index.ts';
import type { ChatChunk, LLM } from '../src/providers/index.ts';
import {
  createCallerPacer,
  createSimCarrier,
  createWorkerPacer,
  type Callee,
  type CallLeg,
  type FarEndVoice,
  type SentBeat,
  type SimAudioLeg,
} from '../src/telephony/index.ts';
import { createDataVoice } from '../src/telephony/testing/index.ts';
import { talk, type CallSpeech, type PatienceLevel, type TalkResult } from '../src/voice/index.ts';
import { Histogram, preciseNow } from './voice-stats.ts';

export const GREETING = 'Hi, this is Northwind. How can I help?';
/** The agent's answer to every line: two sentences, so it is synthesized in two segments. */
export const REPLY = 'Sure, I can do that. One moment please.';
/**
 * What the caller says, in turn. None reads as a complete utterance (no question, not a short
 * yes/no), so endpointing always waits the full patience delay.
 */
export const CALLER_LINES = [
  'I want to move my appointment',
  'My package has not arrived',
  'I need to change my address',
  'The technician never came',
  'I was charged twice last month',
];
const PROMPT = 'You are a helpful scheduling agent for Northwind.';
/** The data voice's end of a line: this many silent frames (createDataVoice). */
const END_OF_LINE_FRAMES = 10;
const FRAME_SAMPLES = 320;
const RING = 32;

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();
const EXPECTED_LINES = new Set([normalize(GREETING), normalize(REPLY)]);

/** What every frame sent in the measurement window adds up to, over all calls. */
export class FrameStats {
  measuring = false;
  /** Per frame sent: how late it left, vs. its slot on the 20 ms grid (ms). */
  readonly send = new Histogram();
  /** Per beat: how late its first frame left (the timer's own lateness). */
  readonly wake = new Histogram();
  /** Per beat: from its first frame to its last (the work of one beat over every leg). */
  readonly span = new Histogram();
  /** The latest frame: how late, and when it left (preciseNow()). */
  worstLate = -Infinity;
  worstAt = NaN;
  underrunFrames = 0;
  underrunEvents = 0;
  linesHeard = 0;
  /** Lines the far end heard that were not a whole greeting or reply (a gap split one). */
  brokenLines = 0;
  /** Per beat of the window (by grid time): its first and last frame's send time. Legs are heard
   * one after the other, each with the beats it sent since it was last heard. */
  readonly #beats = new Map<number, { first: number; last: number }>();

  frame(gridAt: number, sentAt: number): void {
    const late = sentAt - gridAt;
    this.send.record(late);
    if (late > this.worstLate) {
      this.worstLate = late;
      this.worstAt = sentAt;
    }
    const beat = this.#beats.get(gridAt);
    if (!beat) this.#beats.set(gridAt, { first: sentAt, last: sentAt });
    else {
      if (sentAt < beat.first) beat.first = sentAt;
      if (sentAt > beat.last) beat.last = sentAt;
    }
  }

  /** Closes the window: the per-beat figures. */
  settle(): void {
    for (const [gridAt, beat] of this.#beats) {
      this.wake.record(beat.first - gridAt);
      this.span.record(beat.last - beat.first);
    }
    this.#beats.clear();
  }

  get beats(): number {
    return this.wake.count;
  }

  reset(): void {
    this.send.reset();
    this.wake.reset();
    this.span.reset();
    this.#beats.clear();
    this.worstLate = -Infinity;
    this.worstAt = NaN;
    this.underrunFrames = 0;
    this.underrunEvents = 0;
    this.linesHeard = 0;
    this.brokenLines = 0;
  }
}

/** One call's view from the edge: the frames in and out, and when replies were queued and sent. */
export class CallProbe {
  readonly index: number;
  /** The session's start (its first clock reading), on Date.now()'s scale. */
  startedAt = NaN;
  leg: SimAudioLeg | null = null;
  /** Fake model delay of each model call, in order. */
  readonly llmDelays: number[] = [];
  /** When a frame was queued on an empty playout queue (a reply starts), precise. */
  readonly playRuns: number[] = [];
  /** When a frame left after a beat that sent none (a reply's first frame), precise. */
  readonly sendRuns: number[] = [];
  readonly #stats: FrameStats;
  #sending = false;
  #inLine = false;
  #gap = 0;
  readonly #codes = new Uint8Array(FRAME_SAMPLES);
  readonly #ring = Array.from({ length: RING }, () => new Int16Array(FRAME_SAMPLES));
  #ringNext = 0;
  readonly #out = new Int16Array(FRAME_SAMPLES);
  readonly #outFrame: { samples: Int16Array; sampleRate: AudioFrame['sampleRate']; at: number } = {
    samples: this.#out,
    sampleRate: 16000,
    at: 0,
  };

  constructor(index: number, stats: FrameStats) {
    this.index = index;
    this.#stats = stats;
  }

  /** A clock that notes the session's first reading (the `quality` record's time zero). */
  clock(): Clock {
    return {
      now: () => {
        const now = Date.now();
        if (Number.isNaN(this.startedAt)) this.startedAt = now;
        return now;
      },
      sleep: systemClock.sleep,
      setTimer: systemClock.setTimer,
    };
  }

  /** The far end's frame delivered on a beat, through the mu-law edge. A new buffer per frame
   * from a ring: the session keeps a short pre-roll of frames. */
  delivered(frame: AudioFrame): AudioFrame {
    const n = frame.samples.length;
    const samples = n === FRAME_SAMPLES ? this.#ring[this.#ringNext++ % RING]! : new Int16Array(n);
    const codes = n <= FRAME_SAMPLES ? this.#codes.subarray(0, n) : new Uint8Array(n);
    mulawEncodeInto(frame.samples, codes);
    mulawDecodeInto(codes, samples);
    return { samples, sampleRate: frame.sampleRate, at: frame.at };
  }

  /**
   * Our beat as it left (silence included), as the far end gets it through the edge. Timed by the
   * pacer's own stamps: the grid slot and when the frame left, on the pacer's thread.
   */
  sent(frame: AudioFrame, beat: SentBeat): AudioFrame {
    const stats = this.#stats;
    if (stats.measuring) stats.frame(beat.gridAt, beat.sentAt);
    if (beat.frame) {
      if (!this.#sending) this.sendRuns.push(beat.sentAt);
      this.#sending = true;
      if (this.#inLine && this.#gap > 0 && stats.measuring) {
        stats.underrunFrames += this.#gap;
        stats.underrunEvents += 1;
      }
      this.#inLine = true;
      this.#gap = 0;
    } else {
      this.#sending = false;
      if (this.#inLine && ++this.#gap >= END_OF_LINE_FRAMES) {
        this.#inLine = false;
        this.#gap = 0;
      }
    }
    const n = frame.samples.length;
    if (n !== FRAME_SAMPLES) return frame;
    mulawEncodeInto(frame.samples, this.#codes);
    mulawDecodeInto(this.#codes, this.#out);
    this.#outFrame.sampleRate = frame.sampleRate;
    this.#outFrame.at = frame.at;
    return this.#outFrame;
  }

  heard(text: string): void {
    if (!this.#stats.measuring) return;
    this.#stats.linesHeard += 1;
    if (!EXPECTED_LINES.has(normalize(text))) this.#stats.brokenLines += 1;
  }

  /** The leg as the session gets it: the edge on the way in, reply starts noted on the way out. */
  mediaLeg(leg: SimAudioLeg): MediaLeg {
    this.leg = leg;
    return wrapLeg(leg, {
      audioIn: (frame) => this.delivered(frame),
      play: (frame) => {
        if (leg.queuedMs === 0) this.playRuns.push(preciseNow());
        leg.play(frame);
      },
    });
  }
}

/** A fake model: its first token `delay(k)` ms after its k-th call, then `reply` word by word. */
export function createDelayedLLM(reply: string, delay: (k: number) => number, record: number[]): LLM {
  const words = reply.split(/(?<= )/);
  let calls = 0;
  return {
    name: 'fake-delayed',
    chat(request) {
      const ms = delay(calls++);
      record.push(ms);
      return (async function* stream(): AsyncGenerator<ChatChunk> {
        const startedAt = Date.now();
        const aborted = (): ChatChunk => ({
          type: 'done',
          finishReason: 'aborted',
          timings: { startedAt, endedAt: Date.now() },
        });
        if (ms > 0) {
          try {
            await systemClock.sleep(ms, request.signal);
          } catch {
            return yield aborted();
          }
        }
        const firstTokenAt = Date.now();
        for (const text of words) {
          if (request.signal?.aborted) return yield aborted();
          yield { type: 'text', text };
        }
        yield {
          type: 'done',
          finishReason: 'stop',
          usage: { promptTokens: 0, completionTokens: words.length },
          timings: { startedAt, firstTokenAt, endedAt: Date.now() },
        };
      })();
    },
  };
}

/** A caller, and what it said and heard: lines it said, and agent lines heard after one of them. */
export interface TalkativeCallee extends Callee {
  readonly said: number;
  readonly answered: number;
}

/**
 * A caller that waits for the greeting, then answers every line it hears with the next line; with
 * `lines`, it hangs up (saying nothing more) once the reply to its last line has been heard.
 */
export function talkativeCallee(first: number, lines = Infinity): TalkativeCallee {
  let next = first;
  let said = 0;
  let answered = 0;
  return {
    get said() {
      return said;
    },
    get answered() {
      return answered;
    },
    async opening() {
      return '';
    },
    async reply() {
      if (said > 0) answered += 1;
      if (said >= lines) return { text: '', hangUp: true };
      said += 1;
      return { text: CALLER_LINES[next++ % CALLER_LINES.length]!, hangUp: false };
    },
  };
}

/**
 * The far end's voice for the harness's calls: data speech (each line's frames made once), and
 * ears that time every frame our side sends through the probe `probeOf()` gives when a call's far
 * end starts listening (one call connects at a time). With `edge`, the far end's speech passes the
 * mu-law edge here, for calls whose session input the harness cannot wrap (calls the app runs).
 */
export function createProbedFarEnd(probeOf: () => CallProbe, options: { edge?: boolean } = {}): FarEndVoice {
  const frames = new Map<string, AudioFrame[]>();
  const data = createDataVoice();
  const speech = (text: string) => {
    const made = dataSpeechFrames(text);
    return options.edge ? made.map(throughMulaw) : made;
  };
  return {
    async *speak(text) {
      let cached = frames.get(text);
      if (!cached) frames.set(text, (cached = speech(text)));
      yield* cached;
    },
    listen(heard, signal) {
      const probe = probeOf();
      const ears = data.listen((text) => {
        probe.heard(text);
        heard(text);
      }, signal);
      return {
        push: (frame, sent) => {
          if (!sent) throw new Error('the sim gave the far end a frame without its send times');
          ears.push(probe.sent(frame, sent));
        },
      };
    },
  };
}

/** A frame as it comes out of G.711 mu-law (a new buffer). */
function throughMulaw(frame: AudioFrame): AudioFrame {
  const codes = new Uint8Array(frame.samples.length);
  const samples = new Int16Array(frame.samples.length);
  mulawEncodeInto(frame.samples, codes);
  mulawDecodeInto(codes, samples);
  return { samples, sampleRate: frame.sampleRate, at: frame.at };
}

export interface CallRunOptions {
  calls: number;
  /** Call starts are spread evenly over this long (ms). */
  rampMs: number;
  /** After the last start, this long before the window opens (ms). */
  settleMs: number;
  /** The measurement window (ms). */
  measureMs: number;
  /** VAD, STT and TTS of the calls. */
  speech: CallSpeech;
  patience: PatienceLevel;
  /** The fake model's first-token delay of call `call`'s `turn`-th model call. */
  llmDelay: (call: number, turn: number) => number;
  stats: FrameStats;
  /** Who sends the frames on the beat: a worker thread, or the carrier's beat on this thread. */
  pacer: 'worker' | 'caller';
  /** Runs as the window opens, and as it closes (with every call still up). */
  onWindowStart?: () => void;
  onWindowEnd?: () => Promise<void> | void;
}

export interface FinishedCall {
  probe: CallProbe;
  result: TalkResult;
  conversation: ConversationSession;
}

export interface CallRun {
  calls: FinishedCall[];
  windowStart: number;
  windowEnd: number;
  /** Calls that ended other than by our cancel at the end (should be none). */
  unexpected: { status: string; error: string | null }[];
}

export async function runCalls(options: CallRunOptions): Promise<CallRun> {
  const { stats } = options;
  let connecting: CallProbe | null = null;
  const voice = createProbedFarEnd(() => {
    if (!connecting) throw new Error('a far end started listening outside a call start');
    return connecting;
  });
  let calleeIndex = 0;
  const pacer = options.pacer === 'worker' ? createWorkerPacer() : createCallerPacer();
  const carrier = createSimCarrier({
    callee: () => talkativeCallee(calleeIndex++),
    voice,
    // The sim's beat on a sub-millisecond clock: its frames are timed to the microsecond.
    clock: { now: preciseNow, sleep: systemClock.sleep, setTimer: systemClock.setTimer },
    speed: 1,
    pacer,
  });

  // Inbound calls: the sim rings our handler, which answers at once.
  const answered: { leg: CallLeg | null } = { leg: null };
  let callId = '';
  carrier.onIncoming(async (call) => {
    answered.leg = await call.answer(callId);
    return { callId, status: 'in_progress' };
  });

  const stop = new AbortController();
  // Every call listens to this one signal.
  setMaxListeners(0, stop.signal);
  const running: Promise<FinishedCall>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < options.calls; i += 1) {
    const due = t0 + (i * options.rampMs) / options.calls - performance.now();
    if (due > 0) await sleep(due);
    const probe = new CallProbe(i, stats);
    // Calls start one after the other: the far end's ears are built inside ring(), for `connecting`.
    connecting = probe;
    callId = `bench-${i}`;
    await carrier.ring({ from: '+14155550100', to: '+14155550199' });
    connecting = null;
    const leg = answered.leg;
    answered.leg = null;
    if (!leg || leg.text) throw new Error('the sim carrier answered no audio leg');
    const conversation = new ConversationSession({
      agent: { prompt: PROMPT, greeting_message: GREETING, greeting_message_mode: 'agent_static' },
      llm: createDelayedLLM(REPLY, (turn) => options.llmDelay(i, turn), probe.llmDelays),
      style: 'voice',
    });
    running.push(
      talk({
        leg: probe.mediaLeg(leg as SimAudioLeg),
        conversation,
        agent: {
          greeting_message: GREETING,
          greeting_message_mode: 'agent_static',
          patience_level: options.patience,
        },
        speech: options.speech,
        clock: probe.clock(),
        detectVoicemail: false,
        signal: stop.signal,
      }).then((result) => ({ probe, result, conversation })),
    );
  }
  await sleep(options.settleMs);

  stats.reset();
  stats.measuring = true;
  const windowStart = Date.now();
  options.onWindowStart?.();
  await sleep(options.measureMs);
  stats.measuring = false;
  stats.settle();
  const windowEnd = Date.now();
  await options.onWindowEnd?.();

  stop.abort();
  const calls = await Promise.all(running);
  await pacer.close();
  const unexpected = calls
    .filter((c) => c.result.status !== 'canceled')
    .map((c) => ({ status: c.result.status, error: c.result.errorMessage }));
  return { calls, windowStart, windowEnd, unexpected };
}
