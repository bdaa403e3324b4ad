import { createManualClock, type ManualClock } from '../../core/index.ts';
import {
  ConversationSession,
  type AgentConversationConfig,
  type ToolRegistry,
} from '../../conversation/index.ts';
import type { LLM, STT, TTS, VAD } from '../../providers/index.ts';
import {
  createFakeSTT,
  createFakeTTS,
  createFakeVAD,
  createScriptedLLM,
  type FakeSTTOptions,
  type FakeTTSOptions,
  type ScriptStep,
} from '../../providers/testing/index.ts';
import type { VoiceCallResult } from '../outcome.ts';
import { runVoiceCall, type VoiceCallOptions } from '../session.ts';
import { DEFAULT_VOICE_SETTINGS, type VoiceSettings } from '../settings.ts';
import { createFakeLeg, type FakeLeg, type FarEndStep } from './fake-leg.ts';

// Runs one voice call end to end on a manual clock: a scripted far end on a fake leg, the fake
// VAD/STT/TTS (data speech), and a conversation on a scripted model. The clock moves 20 ms at a
// time until the call resolves, so every timer, pace and timeout runs as it would in real time.

export interface ScriptedCallOptions {
  script: FarEndStep[];
  /** The model's replies (repeating the last), or a model of the test's own. */
  replies?: ScriptStep[] | LLM;
  settings?: Partial<VoiceSettings>;
  agent?: Partial<AgentConversationConfig>;
  stt?: FakeSTTOptions | STT;
  tts?: FakeTTSOptions | TTS;
  vad?: VAD;
  tools?: ToolRegistry;
  detectVoicemail?: boolean;
  ttsVoice?: string;
  signal?: AbortSignal;
  /** Simulated time after which the test fails (default 10 min). */
  maxMs?: number;
  /** The manual clock to run on (for fakes the test builds itself). */
  clock?: ManualClock;
  /** Called once per 20 ms beat with the time since the call started. */
  onBeat?: (elapsedMs: number, leg: FakeLeg) => void;
  /** The session's `onTurnsSettled`, with the conversation. */
  onTurnsSettled?: (conversation: ConversationSession, leg: FakeLeg) => void;
  /** The carrier's own machine detection says `who` answered, `atMs` into the call. */
  carrierAnsweredBy?: { who: 'human' | 'machine'; atMs: number };
}

export interface ScriptedCall {
  result: VoiceCallResult;
  leg: FakeLeg;
  conversation: ConversationSession;
  clock: ManualClock;
  startedAt: number;
}

const isProvider = <T extends { name: string }>(value: unknown): value is T =>
  typeof value === 'object' && value !== null && 'name' in value;

export async function runScriptedCall(options: ScriptedCallOptions): Promise<ScriptedCall> {
  const clock = options.clock ?? createManualClock();
  const settings: VoiceSettings = { ...DEFAULT_VOICE_SETTINGS, ...options.settings };
  const llm =
    Array.isArray(options.replies) || options.replies === undefined
      ? createScriptedLLM(options.replies ?? [{ text: 'Okay.' }], { clock, repeatLast: true })
      : options.replies;
  const conversation = new ConversationSession({
    agent: {
      prompt: 'You are a helpful agent.',
      greeting_message: 'Hello, this is Parley.',
      greeting_message_mode: settings.greetingMode,
      ...options.agent,
    },
    llm,
    style: 'voice',
    clock,
    ...(options.tools ? { tools: options.tools } : {}),
  });
  const leg = createFakeLeg({ clock, script: options.script });
  const verdict = options.carrierAnsweredBy;
  if (verdict)
    Object.assign(leg, {
      onAnsweredBy: (listener: (who: 'human' | 'machine') => void) =>
        void clock.sleep(verdict.atMs).then(() => listener(verdict.who)),
    });
  const callOptions: VoiceCallOptions = {
    leg,
    conversation,
    vad: options.vad ?? createFakeVAD(),
    stt: isProvider<STT>(options.stt) ? options.stt : createFakeSTT({ clock, ...options.stt }),
    tts: isProvider<TTS>(options.tts) ? options.tts : createFakeTTS({ clock, ...options.tts }),
    clock,
    settings,
    ...(options.detectVoicemail ? { detectVoicemail: true } : {}),
    ...(options.ttsVoice ? { ttsVoice: options.ttsVoice } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onTurnsSettled ? { onTurnsSettled: () => options.onTurnsSettled?.(conversation, leg) } : {}),
  };
  const startedAt = clock.now();
  let result: VoiceCallResult | null = null;
  let failure: unknown = null;
  runVoiceCall(callOptions).then(
    (r) => (result = r),
    (err: unknown) => (failure = err ?? new Error('runVoiceCall rejected')),
  );
  const maxMs = options.maxMs ?? 600_000;
  while (result === null && failure === null) {
    if (clock.now() - startedAt > maxMs) throw new Error(`the call did not end within ${maxMs} ms`);
    await clock.tick(20);
    options.onBeat?.(clock.now() - startedAt, leg);
  }
  if (failure !== null) throw failure;
  return { result: result as unknown as VoiceCallResult, leg, conversation, clock, startedAt };
}
