// Part 3 of the `voice` case: the offline defaults end to end. Energy VAD, PocketSphinx STT, the
// builtin model and flite TTS on our side of sim calls in audio mode; at the far end, flite
// (kal16) says one of the `stt` case's 50 sentences per call, at 16 kHz or as a phone line gives
// it (sox to 8 kHz G.711 mu-law and back, delivered at 8 kHz, which the STT adapter wants for
// telephone audio). Each call: 300 ms of silence, the sentence, then silence until the agent's
// first frame leaves the leg, then the call is cancelled. A few calls at a time, in real time.
// Then the same sentences said in two pieces with a pause between them (voice-pauses.ts): a reply
// that starts before the caller finished is a caller cut off. Then all of it again said by
// espeak-ng, whose pitch falls at a statement's end, in calls of two lines: a first line the
// agent answers (so the listener has heard how this caller ends a line), then the sentence.
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConversationSession } from '../src/conversation/index.ts';
import { systemClock, type Clock } from '../src/core/index.ts';
import {
  samplesPerFrame,
  wrapLeg,
  type AudioFrame,
  type MediaLeg,
  type SampleRate,
} from '../src/media/index.ts';
import {
  checkPocketSphinx,
  createBuiltinLLM,
  createEnergyVAD,
  createFliteTTS,
  createPocketSphinxSTT,
} from '../src/providers/index.ts';
import { espeakClip, testAudioDir, wordErrorRate, words } from '../src/providers/testing/index.ts';
import {
  createSimCarrier,
  type CallLeg,
  type FarEndVoice,
  type SimAudioLeg,
} from '../src/telephony/index.ts';
import { talk, type PatienceLevel, type VoiceQuality, type VoiceTurnQuality } from '../src/voice/index.ts';
import { onCleanup } from './lib.ts';
import { synthesize, utteranceOf, type Utterance } from './stt.ts';
import { espeakUtterances, pausedUtterances, type CallerVoice, type PauseKind } from './voice-pauses.ts';
import { preciseNow } from './voice-stats.ts';

const LEAD_MS = 300;
/** The pause inside the paused sentences: the longest the target allows (issue 23). */
const PAUSE_MS = 600;
/** After the sentence, how long to wait for the agent's first frame before giving up. */
const REPLY_TIMEOUT_MS = 15_000;
/** After the first frame leaves, the call is cancelled this much later. */
const HANG_UP_AFTER_MS = 100;
const PROMPT = 'You are Sam, a friendly customer service agent for SunCo. Help the caller.';
/** The first line of an espeak-ng call, before the sentence measured. */
export const LEAD_LINE = 'Hello, I am calling about my account.';

export interface OfflineCall {
  sentence: string;
  /** What the call's transcript has as the caller's words (all caller turns). */
  heard: string;
  /** End of speech (VAD) to the first agent frame leaving the leg; null without a reply. */
  realMs: number | null;
  /** The reply turn's record (end of speech to its first frame due, and each stage). */
  turn: VoiceTurnQuality | null;
  status: string;
  /** The agent began a reply before the caller finished. */
  cutOff: boolean;
}

/** The sentences as said: whole, or in two pieces with a pause of `ms` between them. */
export type Saying = { kind: 'whole' } | { kind: PauseKind; ms: number };

export interface OfflineRun {
  voice: CallerVoice;
  rate: 8000 | 16000;
  saying: Saying;
  calls: OfflineCall[];
  wer: number;
  exact: number;
  refWords: number;
}

export type OfflineResult =
  | { kind: 'skipped'; reason: string }
  | { kind: 'ran'; runs: OfflineRun[]; sttPool: number; patience: string };

class OfflineProbe {
  startedAt = NaN;
  leg: SimAudioLeg | null = null;
  /** The measured sentence's first and last frames. */
  firstSpeech: Int16Array | null = null;
  lastSpeech: Int16Array | null = null;
  /** When the measured sentence began (NaN until then; 0 when it is the call's only line). */
  lineStartedAt = NaN;
  farDoneAt = NaN;
  firstSentAt = NaN;
  cutOff = false;
  /** Two-line calls: tells the far end the agent has answered its first line. */
  answered: ((agentSaid: string) => void) | null = null;
  #quietBeats = 0;
  #lastPlayed = 0;
  #wasSending = false;
  readonly controller = new AbortController();

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

  /** On every beat: the first frame of a reply that starts after the sentence ends is timed. */
  sent(): void {
    const played = this.leg?.playedMs ?? 0;
    const sending = played !== this.#lastPlayed;
    const starts = sending && !this.#wasSending;
    this.#lastPlayed = played;
    this.#wasSending = sending;
    // The reply to a first line has ended (10 quiet beats): the far end says the sentence.
    this.#quietBeats = sending ? 0 : this.#quietBeats + 1;
    if (this.answered && played > 0 && this.#quietBeats === 10) {
      this.answered('');
      this.answered = null;
    }
    if (!starts || Number.isNaN(this.lineStartedAt)) return;
    // No greeting: agent audio before the caller finished answers part of the line.
    if (Number.isNaN(this.farDoneAt)) this.cutOff = true;
    if (Number.isNaN(this.farDoneAt) || !Number.isNaN(this.firstSentAt)) return;
    this.firstSentAt = preciseNow();
    setTimeout(() => this.controller.abort(), HANG_UP_AFTER_MS);
  }

  mediaLeg(leg: SimAudioLeg): MediaLeg {
    this.leg = leg;
    return wrapLeg(leg, {
      audioIn: (frame) => {
        if (frame.samples === this.firstSpeech && Number.isNaN(this.lineStartedAt))
          this.lineStartedAt = preciseNow();
        if (frame.samples === this.lastSpeech) this.farDoneAt = preciseNow();
        return frame;
      },
    });
  }
}

/** The sentence's frames after LEAD_MS of silence, the last one padded to a whole frame. */
function spoken(frames: AudioFrame[], rate: SampleRate): AudioFrame[] {
  const n = samplesPerFrame(rate);
  const silence = Array.from({ length: LEAD_MS / 20 }, () => ({
    samples: new Int16Array(n),
    sampleRate: rate,
    at: 0,
  }));
  const whole = frames.map((f) => {
    if (f.samples.length === n) return f;
    const samples = new Int16Array(n);
    samples.set(f.samples);
    return { samples, sampleRate: rate, at: 0 };
  });
  return [...silence, ...whole];
}

async function runRate(
  utterances: Utterance[],
  lead: Utterance | null,
  saying: Saying,
  voiceOf: CallerVoice,
  rate: 8000 | 16000,
  concurrency: number,
  poolSize: number,
  patience: PatienceLevel,
): Promise<OfflineRun> {
  const stt = await createPocketSphinxSTT({ poolSize });
  const tts = createFliteTTS();
  try {
    await Promise.all([stt.ready(), tts.warm()]);
    const vad = createEnergyVAD();
    const llm = createBuiltinLLM();
    const speech = new Map(
      [...utterances, ...(lead ? [lead] : [])].map((u) => [u.text, spoken(u.frames[rate], rate)]),
    );
    let connecting: OfflineProbe | null = null;
    const voice: FarEndVoice = {
      async *speak(text) {
        const frames = speech.get(text);
        if (!frames) throw new Error(`no audio for "${text}"`);
        yield* frames;
      },
      listen(heard) {
        const probe = connecting;
        if (!probe) throw new Error('a far end started listening outside a call start');
        if (lead) probe.answered = heard;
        return { push: () => probe.sent() };
      },
    };
    let current = '';
    const carrier = createSimCarrier({
      callee: () => {
        const sentence = current;
        let said = false;
        const next = () => {
          if (said) return '';
          said = true;
          return sentence;
        };
        return {
          opening: async () => (lead ? lead.text : next()),
          reply: async () => ({ text: next(), hangUp: false }),
        };
      },
      voice,
      clock: systemClock,
      speed: 1,
    });

    const answered: { leg: CallLeg | null } = { leg: null };
    let callId = '';
    carrier.onIncoming(async (call) => {
      answered.leg = await call.answer(callId);
      return { callId, status: 'in_progress' };
    });

    const calls: OfflineCall[] = new Array<OfflineCall>(utterances.length);
    let next = 0;
    let starting: Promise<unknown> = Promise.resolve();
    const one = async (i: number) => {
      const sentence = utterances[i]!.text;
      const probe = new OfflineProbe();
      const frames = speech.get(sentence)!;
      probe.firstSpeech = frames[LEAD_MS / 20]!.samples;
      probe.lastSpeech = frames.at(-1)!.samples;
      if (!lead) probe.lineStartedAt = 0;
      // Starts one at a time: the far end's voice and ears are set up inside ring().
      const started = starting.then(async () => {
        connecting = probe;
        current = sentence;
        callId = `offline-${i}`;
        await carrier.ring({ from: '+14155550100', to: '+14155550199' });
        connecting = null;
        const leg = answered.leg;
        answered.leg = null;
        return leg;
      });
      starting = started.catch(() => undefined);
      const leg = await started;
      if (!leg || leg.text) throw new Error('the sim carrier answered no audio leg');
      const conversation = new ConversationSession({
        agent: { prompt: PROMPT, greeting_message: '', greeting_message_mode: 'agent_static' },
        llm,
        style: 'voice',
      });
      const timeout = setTimeout(() => probe.controller.abort(), 60_000);
      const watchdog = setInterval(() => {
        if (!Number.isNaN(probe.farDoneAt) && preciseNow() - probe.farDoneAt > REPLY_TIMEOUT_MS)
          probe.controller.abort();
      }, 500);
      const result = await talk({
        leg: probe.mediaLeg(leg as SimAudioLeg),
        conversation,
        agent: { greeting_message: '', greeting_message_mode: 'agent_static', patience_level: patience },
        speech: { vad, stt, tts },
        clock: probe.clock(),
        detectVoicemail: false,
        signal: probe.controller.signal,
      });
      clearTimeout(timeout);
      clearInterval(watchdog);
      const quality = result.quality as VoiceQuality;
      const replies = (quality.per_turn ?? []).filter(
        (t) =>
          t.kind === 'reply' &&
          t.end_of_speech_at !== null &&
          t.first_frame_out_at !== null &&
          probe.startedAt + t.end_of_speech_at > probe.lineStartedAt,
      );
      const turn = replies.at(-1) ?? null;
      const eos = turn ? probe.startedAt + turn.end_of_speech_at! : NaN;
      calls[i] = {
        sentence,
        heard: conversation.turns
          .filter((t) => t.speaker === 'user')
          .slice(lead ? 1 : 0)
          .map((t) => t.text)
          .join(' '),
        realMs: turn && probe.firstSentAt > eos ? probe.firstSentAt - eos : null,
        turn,
        status: result.status,
        cutOff: probe.cutOff,
      };
    };
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < utterances.length; i = next++) {
          await one(i);
          await sleep(200);
        }
      }),
    );
    let errors = 0;
    let refWords = 0;
    let exact = 0;
    for (const call of calls) {
      const n = words(call.sentence).length;
      const wer = wordErrorRate(call.sentence, call.heard);
      errors += wer * n;
      refWords += n;
      if (wer === 0) exact += 1;
    }
    return { voice: voiceOf, rate, saying, calls, wer: errors / refWords, exact, refWords };
  } finally {
    await tts.close();
    await stt.close();
  }
}

export async function runOffline(options: {
  sentences: number;
  concurrency: number;
  patience: PatienceLevel;
  voices: CallerVoice[];
}): Promise<OfflineResult> {
  const check = await checkPocketSphinx();
  if (!check.ok)
    return { kind: 'skipped', reason: `PocketSphinx is not installed (missing ${check.missing.join(', ')})` };
  const dir = testAudioDir();
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  const runs: OfflineRun[] = [];
  const poolSize = Math.max(2, options.concurrency);
  for (const voice of options.voices) {
    console.log(`offline: synthesizing the sentences with ${voice}...`);
    const whole = voice === 'flite' ? synthesize(dir) : espeakUtterances(dir);
    const utterances = whole.slice(0, options.sentences);
    const lead =
      voice === 'flite'
        ? null
        : utteranceOf(dir, LEAD_LINE, espeakClip(dir, LEAD_LINE, 'lead').samples, 'lead');
    const said = new Set(utterances.map((u) => u.text));
    const sets: [Saying, Utterance[]][] = [[{ kind: 'whole' }, utterances]];
    for (const kind of ['hesitation', 'phrase'] as const) {
      const paused = pausedUtterances(dir, kind, PAUSE_MS, voice).filter((u) => said.has(u.text));
      sets.push([{ kind, ms: PAUSE_MS }, paused]);
    }
    for (const [saying, set] of sets) {
      for (const rate of [16000, 8000] as const) {
        console.log(
          `offline: ${set.length} calls (${voice}, ${saying.kind}) at ${rate / 1000} kHz, ${options.concurrency} at a time...`,
        );
        runs.push(
          await runRate(set, lead, saying, voice, rate, options.concurrency, poolSize, options.patience),
        );
      }
    }
  }
  return {
    kind: 'ran',
    runs,
    sttPool: poolSize,
    patience: options.patience === 'medium' ? 'medium (the default)' : options.patience,
  };
}
