import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { ACTION_KINDS, type ActionKind } from '../../store/index.ts';
import {
  HttpUrl,
  NonEmptyString,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
} from '../schemas/common.ts';

// The action resource (WIRE.md section 8). A create body carries exactly one kind key whose value
// is that kind's configuration; an update body carries the action's own kind key with the fields
// to change. Keys Parley does not know inside a configuration are kept and echoed (as for agents).

/** Names of transfer, SMS and WhatsApp actions: kept exactly as typed, at most 64 characters. */
export const ACTION_NAME_MAX = 64;

// JSON Schema maxLength counts code points (ajv's `unicode` option), so an emoji is one character.
const ExactName = () =>
  NonEmptyString(
    ACTION_NAME_MAX,
    `Stored exactly as typed (no trimming); at most ${ACTION_NAME_MAX} characters.`,
  );
const Name = () => NonEmptyString(200);
const Text = (maxLength = 4000, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

const open = <T extends TProperties>(properties: T, description?: string): TObject<T> =>
  Type.Object(properties, { additionalProperties: true, ...(description ? { description } : {}) });

export const InformationExtractorConfig = open(
  {
    identifier: NonEmptyString(200, 'The variable name the extracted value is stored under.'),
    description: NonEmptyString(4000, 'What to extract; also the trigger condition.'),
    kind: StringEnum(['yes_no', 'single_choice', 'open_question'] as const),
    choices: Type.Optional(
      Type.Array(NonEmptyString(500), { maxItems: 100, description: 'For single_choice.' }),
    ),
    examples: Type.Optional(Type.Array(Text(1000), { maxItems: 100 })),
  },
  'Extracts a value from the conversation.',
);

export const LiveTransferConfig = open(
  {
    name: ExactName(),
    phone: NonEmptyString(32, 'Where to transfer the call (E.164).'),
    transfer_mode: Type.Optional(StringEnum(['cold_transfer', 'warm_transfer'] as const)),
    instructions: Type.Optional(Text()),
    initiating_msg: Type.Optional(Text()),
    failed_msg: Type.Optional(Text()),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, description: 'Seconds.' })),
  },
  'Transfers the call to a person.',
);

export const SendSmsConfig = open(
  {
    name: ExactName(),
    content: NonEmptyString(1600, 'The message (sent after the call).'),
    instructions: Type.Optional(Text()),
  },
  'Sends a text message after the call.',
);

export const InCallMessageConfig = open(
  {
    name: ExactName(),
    message_body: Type.Optional(NonEmptyString(1600)),
    content_sid: Type.Optional(NonEmptyString(200, 'A provider message template.')),
    wait_for_reply: Type.Optional(Type.Boolean()),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  },
  'Sends a message during the call; message_body or content_sid is required.',
);

export const RealTimeBookingConfig = open(
  {
    name: Name(),
    timezone: NonEmptyString(64, 'IANA time zone.'),
    no_of_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
    max_time_slots: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    min_hours_diff: Type.Optional(Type.Number({ minimum: 0, maximum: 8760 })),
    calendar: Type.Optional(
      Type.Union([Type.String({ maxLength: 2000 }), Type.Object({}, { additionalProperties: true })]),
    ),
  },
  'Books appointments in a calendar.',
);

export const HTTP_MODES = ['GET', 'POST', 'PUT', 'PATCH'] as const;

export const CallVariable = open({
  name: NonEmptyString(200),
  description: Type.Optional(Text()),
  example: Type.Optional(Text(1000)),
  type: Type.Optional(NonEmptyString(32, 'Default string.')),
});

export const CustomActionConfig = open(
  {
    name: Name(),
    description: Type.Optional(Text(4000, 'When to use the action; also the trigger condition.')),
    http_mode: StringEnum(HTTP_MODES),
    url: HttpUrl('The endpoint to call'),
    headers: Type.Optional(
      Type.Array(Type.Object({ key: NonEmptyString(200), value: Text() }), { maxItems: 100 }),
    ),
    query_parameters: Type.Optional(
      Type.Union([
        Type.Array(Type.Object({ key: NonEmptyString(200), value: Text() }), { maxItems: 100 }),
        Type.Object({}, { additionalProperties: true }),
      ]),
    ),
    json_body_stringified: Type.Optional(Text(100_000, 'A JSON document (text) sent as the body.')),
    custom_auth: Type.Optional(Type.Object({}, { additionalProperties: true })),
    variables_during_the_call: Type.Optional(Type.Array(CallVariable, { maxItems: 100 })),
    run_action_before_call_start: Type.Optional(Type.Boolean()),
    speech_while_using_the_tool: Type.Optional(Text()),
    failure_timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, description: 'Seconds.' })),
    message_error: Type.Optional(Text()),
  },
  'Calls an HTTP endpoint.',
);

export const KIND_CONFIGS = {
  REAL_TIME_BOOKING: RealTimeBookingConfig,
  INFORMATION_EXTRACTOR: InformationExtractorConfig,
  LIVE_TRANSFER: LiveTransferConfig,
  SEND_SMS: SendSmsConfig,
  INCALL_SMS: InCallMessageConfig,
  INCALL_WHATSAPP: InCallMessageConfig,
  CUSTOM_ACTION: CustomActionConfig,
} as const satisfies Record<ActionKind, TObject>;

export const CreateActionBody = Type.Object(
  {
    REAL_TIME_BOOKING: Type.Optional(RealTimeBookingConfig),
    INFORMATION_EXTRACTOR: Type.Optional(InformationExtractorConfig),
    LIVE_TRANSFER: Type.Optional(LiveTransferConfig),
    SEND_SMS: Type.Optional(SendSmsConfig),
    INCALL_SMS: Type.Optional(InCallMessageConfig),
    INCALL_WHATSAPP: Type.Optional(InCallMessageConfig),
    CUSTOM_ACTION: Type.Optional(CustomActionConfig),
  },
  { description: `Exactly one of: ${ACTION_KINDS.join(', ')}.` },
);
export type CreateActionBody = Static<typeof CreateActionBody>;

export const UpdateActionBody = Type.Object(
  {
    REAL_TIME_BOOKING: Type.Optional(Type.Partial(RealTimeBookingConfig)),
    INFORMATION_EXTRACTOR: Type.Optional(Type.Partial(InformationExtractorConfig)),
    LIVE_TRANSFER: Type.Optional(Type.Partial(LiveTransferConfig)),
    SEND_SMS: Type.Optional(Type.Partial(SendSmsConfig)),
    INCALL_SMS: Type.Optional(Type.Partial(InCallMessageConfig)),
    INCALL_WHATSAPP: Type.Optional(Type.Partial(InCallMessageConfig)),
    CUSTOM_ACTION: Type.Optional(Type.Partial(CustomActionConfig)),
  },
  { description: "Only the action's own kind key; its fields are merged into the configuration." },
);
export type UpdateActionBody = Static<typeof UpdateActionBody>;

export const ActionIdParams = Type.Object({ action_id: NonEmptyString(100) });

export const ListActionsQuery = Type.Object(limitOffsetQuery(20, 1000));

export const AttachActionsBody = Type.Object({
  model_id: NonEmptyString(100, 'The agent.'),
  actions: Type.Array(NonEmptyString(100), { minItems: 1, maxItems: 100, description: 'Action ids.' }),
});
export type AttachActionsBody = Static<typeof AttachActionsBody>;

export const ActionRead = Type.Object(
  {
    action_id: Type.String(),
    kind: StringEnum(ACTION_KINDS),
    action_type: Type.String(),
    name: Type.String(),
    config: Type.Object({}, { additionalProperties: true }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Action', title: 'Action' },
);

export const ActionPage = Type.Object({
  pagination: PaginationSchema,
  actions: Type.Array(Type.Ref('Action')),
});
