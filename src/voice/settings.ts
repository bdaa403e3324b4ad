// The voice session's settings: typed, in ms, with the agent's published fields (WIRE.md, the
// agent object; research/synthflow-api.md section 3.2) mapped onto them by `voiceSettingsOf`.
//
// Defaults, when a field is absent, null or out of range:
//
// | agent field                           | default                 | VoiceSettings            |
// |---------------------------------------|-------------------------|--------------------------|
// | greeting_message_mode                 | agent_static            | greetingMode             |
// | greeting_message (human mode, timeout)| '' (say nothing)        | humanTimeoutLine         |
// | greeting_message_human_talk_timeout   | 5 s                     | humanTalkTimeoutMs       |
// | initial_pause_seconds                 | 0 s                     | initialPauseMs           |
// | greeting_interruptible (Parley's)     | false                   | greetingInterruptible    |
// | patience_level                        | medium                  | patience (400/800/1400)  |
// | min_words_to_interrupt ("0".."5")     | "1"                     | minWordsToInterrupt      |
// | interruption_fade_out (20 ms frames)  | 2 frames (40 ms)        | fadeOutFrames            |
// | allowed_idle_time_seconds             | 30 s                    | idle.allowedMs           |
// | send_user_idle_reminders              | false                   | idle.reminder (null)     |
// | reminder_after_idle_time_seconds      | 10 s                    | idle.reminder.afterMs    |
// | reminder_after_idle_message           | "Are you still there?"  | idle.reminder.message    |
// | max_duration {is_enabled,duration_s}  | disabled                | maxDurationMs (null)     |
// | speech_while_using_the_tool           | '' (no filler)          | toolWaitLine             |
// | voice_speed (1 = normal)              | 1, clamped 0.5..2       | voiceSpeed               |
// | voice_volume (gain, 1 = unchanged)    | 1, clamped 0..2         | voiceVolume              |
// | synthesizer_filter_words              | []                      | filterWords              |
// | transcriber_keywords                  | []                      | keywords                 |
// | background_noise {enabled,type,volume}| off; volume 20 (0..100) | backgroundNoise (null)   |
// | voicemail_message {enabled,mode,...}  | off                     | voicemailMessage (null)  |
// | language                              | the STT's own           | language                 |
//
// `speech_while_using_the_tool` is published as a plain string on CUSTOM_ACTION actions, where
// the conversation engine already says it before the request (the tool's `messageBefore`). The
// voice session takes one agent-wide line for any tool that is still running after TOOL_WAIT_MS
// with nothing said; the caller passes it here (for example the first custom action's line).
// `voice_volume` and `background_noise.volume` have no published scale: Parley reads the first
// as a gain (1 = as synthesized) and the second as a percentage of a quiet bed (see noise.ts).

export type GreetingMode = 'agent_static' | 'agent_dynamic' | 'human';
export type PatienceLevel = 'low' | 'medium' | 'high';
export type NoiseType = 'cafe' | 'office';

export interface VoiceSettings {
  greetingMode: GreetingMode;
  /** Human mode: the agent speaks first after this long without the callee speaking. */
  humanTalkTimeoutMs: number;
  /** What the agent says then (the greeting, placeholders filled); '' says nothing. */
  humanTimeoutLine: string;
  /** Agent modes: silence before the greeting. */
  initialPauseMs: number;
  /**
   * Whether caller speech may cut the greeting off. Off by default: a callee's "hello?" at
   * pick-up must not stop the agent after three words; what the callee says is heard, kept, and
   * answered after the greeting.
   */
  greetingInterruptible: boolean;
  patience: PatienceLevel;
  /** 0..5; 0 = caller speech of BARGE_IN_MIN_SPEECH_MS interrupts. */
  minWordsToInterrupt: number;
  /** Frames of 20 ms faded out when the agent is interrupted. */
  fadeOutFrames: number;
  idle: {
    /** Silence, in all, after which the call ends. */
    allowedMs: number;
    reminder: { afterMs: number; message: string } | null;
  };
  maxDurationMs: number | null;
  /** Said when a tool is still running after TOOL_WAIT_MS and nothing was said; '' = none. */
  toolWaitLine: string;
  voiceSpeed: number;
  voiceVolume: number;
  filterWords: string[];
  keywords: string[];
  backgroundNoise: { type: NoiseType; volume: number } | null;
  /** The text left on an answering machine; null = hang up on voicemail. */
  voicemailMessage: string | null;
  language?: string;
}

/** The agent's stored fields the voice session reads (published names). */
export interface VoiceAgentFields {
  greeting_message?: string | null;
  greeting_message_mode?: GreetingMode | null;
  greeting_message_human_talk_timeout?: number | null;
  initial_pause_seconds?: number | null;
  greeting_interruptible?: boolean | null;
  patience_level?: PatienceLevel | null;
  min_words_to_interrupt?: string | null;
  interruption_fade_out?: number | null;
  allowed_idle_time_seconds?: number | null;
  send_user_idle_reminders?: boolean | null;
  reminder_after_idle_time_seconds?: number | null;
  reminder_after_idle_message?: string | null;
  max_duration?: { duration_seconds?: number | null; is_enabled?: boolean | null } | null;
  speech_while_using_the_tool?: string | null;
  voice_speed?: number | null;
  voice_volume?: number | null;
  synthesizer_filter_words?: string[] | null;
  transcriber_keywords?: string[] | null;
  background_noise?: { enabled?: boolean | null; type?: NoiseType | null; volume?: number | null } | null;
  voicemail_message?: {
    enabled?: boolean | null;
    mode?: 'exact_message' | 'prompt' | null;
    exact_message?: string | null;
    prompt?: string | null;
  } | null;
  language?: string | null;
}

export const PATIENCE_LEVELS: readonly PatienceLevel[] = ['low', 'medium', 'high'];
export const DEFAULT_IDLE_REMINDER = 'Are you still there?';

export const DEFAULT_VOICE_SETTINGS: VoiceSettings = {
  greetingMode: 'agent_static',
  humanTalkTimeoutMs: 5_000,
  humanTimeoutLine: '',
  initialPauseMs: 0,
  greetingInterruptible: false,
  patience: 'medium',
  minWordsToInterrupt: 1,
  fadeOutFrames: 2,
  idle: { allowedMs: 30_000, reminder: null },
  maxDurationMs: null,
  toolWaitLine: '',
  voiceSpeed: 1,
  voiceVolume: 1,
  filterWords: [],
  keywords: [],
  backgroundNoise: null,
  voicemailMessage: null,
};

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** A finite number >= min, else the default. */
function num(value: number | null | undefined, fallback: number, min = 0): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min ? value : fallback;
}

const seconds = (value: number | null | undefined, fallbackMs: number) =>
  Math.round(num(value, fallbackMs / 1000) * 1000);

const words = (list: string[] | null | undefined) =>
  (list ?? []).filter((w): w is string => typeof w === 'string' && w.trim() !== '').map((w) => w.trim());

export function voiceSettingsOf(agent: VoiceAgentFields): VoiceSettings {
  const d = DEFAULT_VOICE_SETTINGS;
  const mode = agent.greeting_message_mode;
  const minWords = Number.parseInt(agent.min_words_to_interrupt ?? '', 10);
  const reminderMessage = agent.reminder_after_idle_message?.trim() || DEFAULT_IDLE_REMINDER;
  const limit = agent.max_duration;
  const limitSeconds = num(limit?.duration_seconds, 0);
  const noise = agent.background_noise;
  const vm = agent.voicemail_message;
  const vmText = vm?.enabled ? ((vm.mode === 'prompt' ? vm.prompt : vm.exact_message) ?? '').trim() : '';
  return {
    greetingMode:
      mode === 'human' || mode === 'agent_dynamic' || mode === 'agent_static' ? mode : d.greetingMode,
    humanTalkTimeoutMs: seconds(agent.greeting_message_human_talk_timeout, d.humanTalkTimeoutMs),
    humanTimeoutLine: agent.greeting_message?.trim() ?? '',
    initialPauseMs: seconds(agent.initial_pause_seconds, d.initialPauseMs),
    greetingInterruptible:
      typeof agent.greeting_interruptible === 'boolean'
        ? agent.greeting_interruptible
        : d.greetingInterruptible,
    patience: PATIENCE_LEVELS.includes(agent.patience_level as PatienceLevel)
      ? (agent.patience_level as PatienceLevel)
      : d.patience,
    minWordsToInterrupt: Number.isInteger(minWords) ? clamp(minWords, 0, 5) : d.minWordsToInterrupt,
    fadeOutFrames: Math.round(clamp(num(agent.interruption_fade_out, d.fadeOutFrames), 0, 50)),
    idle: {
      allowedMs: seconds(agent.allowed_idle_time_seconds, d.idle.allowedMs),
      reminder: agent.send_user_idle_reminders
        ? { afterMs: seconds(agent.reminder_after_idle_time_seconds, 10_000), message: reminderMessage }
        : null,
    },
    maxDurationMs: limit?.is_enabled && limitSeconds > 0 ? Math.round(limitSeconds * 1000) : null,
    toolWaitLine: agent.speech_while_using_the_tool?.trim() ?? '',
    voiceSpeed: clamp(num(agent.voice_speed, 1, Number.MIN_VALUE), 0.5, 2),
    voiceVolume: clamp(num(agent.voice_volume, 1), 0, 2),
    filterWords: words(agent.synthesizer_filter_words),
    keywords: words(agent.transcriber_keywords),
    backgroundNoise: noise?.enabled
      ? { type: noise.type === 'office' ? 'office' : 'cafe', volume: clamp(num(noise.volume, 20), 0, 100) }
      : null,
    voicemailMessage: vmText || null,
    ...(agent.language ? { language: agent.language } : {}),
  };
}
