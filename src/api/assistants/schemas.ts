import { Type, type Static } from '@sinclair/typebox';
import {
  AgentConfig,
  InboundCallWebhookUrl,
  MaxDuration,
  VoicemailMessage,
  sharedAgentFields,
} from '../../core/index.ts';
import { NonEmptyString, PaginationSchema, StringEnum, limitOffsetQuery } from '../schemas/common.ts';

// The agent resource (spec "Agent", WIRE.md section 2). The request bodies are built from the
// stored agent's schemas (src/core/agent-spec.ts): known fields are validated strictly; other
// keys inside `agent` are kept and echoed, so clients sending newer vendor fields work.

export const AGENT_TYPES = ['outbound', 'inbound', 'widget', 'chat'] as const;

export const CreateAgentBody = Type.Object({
  type: StringEnum(AGENT_TYPES),
  name: NonEmptyString(200),
  agent: AgentConfig,
  inbound_call_webhook_url: Type.Optional(InboundCallWebhookUrl),
  ...sharedAgentFields,
});
export type CreateAgentBody = Static<typeof CreateAgentBody>;

/** Fields accepted on create but refused on update (spec, Agent "Update" column). */
export const NOT_ACCEPTED_ON_UPDATE = ['type', 'inbound_call_webhook_url'] as const;

export const UpdateAgentBody = Type.Object({
  name: Type.Optional(NonEmptyString(200)),
  agent: Type.Optional(AgentConfig),
  ...sharedAgentFields,
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
    live_version_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'Parley extension: the published version new calls, chats and simulations run; null while never published (the draft runs).',
    }),
    voice_resolution: Type.Optional(
      Type.Object(
        {
          voice_id: Type.Union([Type.String(), Type.Null()], { description: "The agent's voice_id." }),
          available: Type.Boolean({ description: 'Whether a configured provider serves voice_id.' }),
          speaks_with: Type.String({ description: "The voice the agent's calls start with." }),
          provider: Type.String(),
          reason: Type.Union([Type.String(), Type.Null()], { description: 'Why another voice speaks.' }),
        },
        {
          description: "Parley extension: the voice the agent's calls speak with (docs/speech-providers.md).",
        },
      ),
    ),
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
