import { Type, type Static } from '@sinclair/typebox';
import {
  HttpUrl,
  NonEmptyString,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
} from '../schemas/common.ts';

// The agent resource (spec "Agent", WIRE.md section 2). Known fields are validated strictly;
// other keys inside `agent` are kept and echoed, so clients sending newer vendor fields work.

export const AGENT_TYPES = ['outbound', 'inbound', 'widget', 'chat'] as const;
export const GREETING_MODES = ['human', 'agent_static', 'agent_dynamic'] as const;

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
  },
  { additionalProperties: true, description: 'Agent configuration; update merges it key by key.' },
);

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

export const VoicemailMessage = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    mode: Type.Optional(enumOf(['exact_message', 'prompt'] as const)),
    exact_message: Type.Optional(Str(4000)),
    prompt: Type.Optional(Str(4000)),
  },
  { additionalProperties: true },
);

const sharedFields = {
  description: Type.Optional(Str(4000)),
  phone_number: Type.Optional(Str(32, 'A number of the workspace to attach (E.164).')),
  external_webhook_url: Type.Optional(HttpUrl('Receives the post-call webhook')),
  is_recording: Type.Optional(Type.Boolean()),
  max_duration: Type.Optional(MaxDuration),
  voicemail_message: Type.Optional(VoicemailMessage),
  end_call_reasons: Type.Optional(Type.Array(Str(2000), { maxItems: 100, description: 'Deprecated.' })),
};

export const CreateAgentBody = Type.Object({
  type: enumOf(AGENT_TYPES),
  name: NonEmptyString(200),
  agent: AgentConfig,
  inbound_call_webhook_url: Type.Optional(HttpUrl('Receives the inbound webhook')),
  ...sharedFields,
});
export type CreateAgentBody = Static<typeof CreateAgentBody>;

/** Fields accepted on create but refused on update (spec, Agent "Update" column). */
export const NOT_ACCEPTED_ON_UPDATE = ['type', 'inbound_call_webhook_url'] as const;

export const UpdateAgentBody = Type.Object({
  name: Type.Optional(NonEmptyString(200)),
  agent: Type.Optional(AgentConfig),
  ...sharedFields,
});
export type UpdateAgentBody = Static<typeof UpdateAgentBody>;

export const ModelIdParams = Type.Object({ model_id: NonEmptyString(100) });

export const GetAgentQuery = Type.Object({
  include_actions: Type.Boolean({ default: false, description: 'Add action ids and input variables.' }),
});

export const ListAgentsQuery = Type.Object({
  ...limitOffsetQuery(20, 1000),
  include_actions: Type.Boolean({ default: false, description: 'Add action ids and input variables.' }),
});

export const AttachNumbersBody = Type.Object({
  phone_numbers: Type.Optional(Type.Array(NonEmptyString(32), { minItems: 1, maxItems: 100 })),
  phone_number_slugs: Type.Optional(Type.Array(NonEmptyString(32), { minItems: 1, maxItems: 100 })),
});
export type AttachNumbersBody = Static<typeof AttachNumbersBody>;

export const DetachNumberParams = Type.Object({
  model_id: NonEmptyString(100),
  phone_number_slug: NonEmptyString(33),
});

export const AttachedNumber = Type.Object({
  number: Type.String(),
  sid: Type.Union([Type.String(), Type.Null()]),
  slug: Type.String(),
});

export const InputVariables = Type.Object({
  action_id: Type.String(),
  values: Type.Array(Type.Object({}, { additionalProperties: true })),
  trigger_condition: Type.Union([Type.String(), Type.Null()]),
});

export const AgentRead = Type.Object(
  {
    model_id: Type.String(),
    type: Type.String(),
    name: Type.String(),
    description: Type.String(),
    agent: Type.Object({}, { additionalProperties: true }),
    // Strings and objects as the published API types them: empty when not set, never null.
    phone_number: Type.String({ description: 'Empty when none.' }),
    external_webhook_url: Type.String({ description: 'Empty when none.' }),
    inbound_call_webhook_url: Type.String({ description: 'Empty when none.' }),
    is_recording: Type.Boolean(),
    max_duration: Type.Object(MaxDuration.properties, {
      additionalProperties: true,
      description: '`{"is_enabled": false}` when not set.',
    }),
    voicemail_message: Type.Object(VoicemailMessage.properties, {
      additionalProperties: true,
      description: '`{"enabled": false}` when not set.',
    }),
    end_call_reasons: Type.Array(Type.String()),
    knowledge_base_id: Type.Union([Type.String(), Type.Null()]),
    attached_phone_numbers: Type.Array(AttachedNumber),
    actions: Type.Array(Type.String()),
    input_variables: Type.Array(InputVariables),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Agent', title: 'Agent' },
);

export const AgentPage = Type.Object({
  pagination: PaginationSchema,
  assistants: Type.Array(Type.Ref('Agent')),
});
