import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, NonEmptyString, StringEnum } from './schema-types.ts';

// The stored agent: every field of an agent other than its type and name (WIRE.md section 2).
// These schemas are the single source for the API's request bodies (src/api/assistants), for
// the type the store returns, and for the check the store runs on what it reads back. Known
// fields are validated strictly; other keys are kept and echoed, so clients sending newer vendor
// fields work.

export const GREETING_MODES = ['human', 'agent_static', 'agent_dynamic'] as const;
export const BACKGROUND_NOISE_TYPES = ['cafe', 'office'] as const;
/** The published `transcriber_provider` values, then Parley's own recognizers. */
export const TRANSCRIBER_PROVIDERS = [
  'deepgram',
  'deepgram-nova-3',
  'synthflow-stt',
  'openai',
  'pocketsphinx',
] as const;
/** The published `fallback_provider` values, then Parley's own synthesizers. */
export const FALLBACK_PROVIDERS = [
  'elevenlabs',
  'deepgram',
  'synthflow',
  'cartesia',
  'openai',
  'flite',
] as const;

const Str = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const Num = (description: string) => Type.Number({ description });
const enumOf = <const T extends readonly string[]>(values: T, description?: string) =>
  StringEnum(values, description ? { description } : {});

export const EndCallReasonV2 = Type.Object({
  reason: NonEmptyString(2000, 'The condition that ends the call.'),
  closing_message_mode: Type.Optional(enumOf(['static', 'prompt', 'none'] as const)),
  closing_message: Type.Optional(Str(4000)),
});

export const BackgroundNoise = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    type: Type.Optional(enumOf(BACKGROUND_NOISE_TYPES)),
    volume: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  },
  { description: "Ambience mixed under the agent's voice." },
);

export const AgentConfig = Type.Object(
  {
    prompt: Type.Optional(Str(100_000, 'System prompt; `{variable}` placeholders are filled per call.')),
    greeting_message: Type.Optional(Str(4000)),
    greeting_message_mode: Type.Optional(enumOf(GREETING_MODES, 'Default agent_static.')),
    greeting_message_human_talk_timeout: Type.Optional(Type.Integer({ minimum: 0, maximum: 600 })),
    llm: Type.Optional(NonEmptyString(200, 'Model name; see the plan rule.')),
    language: Type.Optional(NonEmptyString(35, 'BCP-47 language tag, default en-US.')),
    voice_id: Type.Optional(Str(200)),
    timezone: Type.Optional(NonEmptyString(64, 'IANA time zone, default UTC.')),
    voice_style: Type.Optional(Num('Decimal style strength.')),
    voice_stability: Type.Optional(Num('0 to 1.')),
    voice_similarity_boost: Type.Optional(Num('0 to 1.')),
    voice_speed: Type.Optional(Num('Speaking rate multiplier.')),
    voice_volume: Type.Optional(Num('Volume multiplier.')),
    transcriber_keywords: Type.Optional(Type.Array(Str(200), { maxItems: 500 })),
    suppression_level: Type.Optional(Num('Voice isolation strength.')),
    redact_pii: Type.Optional(Type.Boolean()),
    min_words_to_interrupt: Type.Optional(enumOf(['0', '1', '2', '3', '4', '5'] as const)),
    allowed_idle_time_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
    send_user_idle_reminders: Type.Optional(Type.Boolean()),
    reminder_after_idle_time_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
    reminder_after_idle_message: Type.Optional(Str(4000)),
    patience_level: Type.Optional(enumOf(['low', 'medium', 'high'] as const)),
    end_call_reasons: Type.Optional(Type.Array(Str(2000), { maxItems: 100, description: 'Deprecated.' })),
    end_call_reasons_v2: Type.Optional(Type.Array(EndCallReasonV2, { maxItems: 100 })),
    allow_public_chat: Type.Optional(
      Type.Boolean({
        description:
          'Chats without an API key (public widgets) may be opened with this agent. Default: on for widget and chat agents, off for the others.',
      }),
    ),
    // Voice settings of the published agent (research/synthflow-api.md section 3.2).
    interruption_fade_out: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 50,
        description: "Frames of 20 ms over which the agent's voice fades out when interrupted.",
      }),
    ),
    greeting_interruptible: Type.Optional(
      Type.Boolean({
        description:
          "Parley extension: whether the callee's speech may cut the greeting off (default false: a hello at pick-up is heard and answered after the greeting).",
      }),
    ),
    initial_pause_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 60, description: 'Silence before the agent first speaks.' }),
    ),
    ring_pause_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 60,
        description: 'How long the line rings before it is answered.',
      }),
    ),
    background_noise: Type.Optional(BackgroundNoise),
    synthesizer_filter_words: Type.Optional(
      Type.Array(Str(200), { maxItems: 500, description: 'Words never spoken by the synthesizer.' }),
    ),
    // Speech providers (docs/speech-providers.md): the published names, plus Parley's own engines.
    transcriber_provider: Type.Optional(
      enumOf(TRANSCRIBER_PROVIDERS, 'The speech recognizer tried first; default the server order.'),
    ),
    fallback_voice_id: Type.Optional(
      Str(200, "The voice spoken with when `voice_id`'s provider is not configured or fails."),
    ),
    fallback_provider: Type.Optional(enumOf(FALLBACK_PROVIDERS, 'The provider of `fallback_voice_id`.')),
  },
  { additionalProperties: true, description: 'Agent configuration; update merges it key by key.' },
);
export type AgentConfig = Static<typeof AgentConfig>;

// Like `agent`, these keep keys Parley does not know and echo them.
export const MaxDuration = Type.Object(
  {
    duration_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 86_400, description: 'At least 1 when is_enabled is true.' }),
    ),
    is_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type MaxDuration = Static<typeof MaxDuration>;

export const VoicemailMessage = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    mode: Type.Optional(enumOf(['exact_message', 'prompt'] as const)),
    exact_message: Type.Optional(Str(4000)),
    prompt: Type.Optional(Str(4000)),
  },
  { additionalProperties: true },
);
export type VoicemailMessage = Static<typeof VoicemailMessage>;

/** Top-level fields accepted on both create and update. */
export const sharedAgentFields = {
  description: Type.Optional(Str(4000)),
  phone_number: Type.Optional(Str(32, 'A number of the workspace to attach (E.164).')),
  external_webhook_url: Type.Optional(HttpUrl('Receives the post-call webhook')),
  is_recording: Type.Optional(Type.Boolean()),
  max_duration: Type.Optional(MaxDuration),
  voicemail_message: Type.Optional(VoicemailMessage),
  end_call_reasons: Type.Optional(Type.Array(Str(2000), { maxItems: 100, description: 'Deprecated.' })),
};

export const InboundCallWebhookUrl = HttpUrl('Receives the inbound webhook');

/** What the store keeps of an agent besides its type and name. */
export const AgentSpec = Type.Object(
  {
    ...sharedAgentFields,
    inbound_call_webhook_url: Type.Optional(InboundCallWebhookUrl),
    agent: Type.Optional(AgentConfig),
  },
  { additionalProperties: true },
);
export type AgentSpec = Static<typeof AgentSpec>;

/**
 * A copy of `schema` without `maxLength`. TypeBox counts a string's UTF-16 units where the API's
 * validator (Ajv) counts code points, so a text of emoji the API accepted can be too long for
 * TypeBox: the check of what the store reads back must not drop it.
 */
function withoutMaxLength<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutMaxLength) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<PropertyKey, unknown> = {};
  for (const key of Reflect.ownKeys(schema)) {
    if (key !== 'maxLength') copy[key] = withoutMaxLength((schema as Record<PropertyKey, unknown>)[key]);
  }
  return copy as T;
}

/** The check for a spec read back from the store: AgentSpec without the string length limits. */
export const StoredAgentSpec = withoutMaxLength(AgentSpec);
