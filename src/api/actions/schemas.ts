import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { DEFAULT_EVAL_CATEGORY, EVAL_CATEGORIES, WEEKDAY_NAMES } from '../../actions/index.ts';
import { ACTION_KINDS } from '../../store/index.ts';
import {
  CustomVariablesInput,
  HttpUrl,
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
} from '../schemas/common.ts';

// The action resource (WIRE.md section 8). A create body carries exactly one kind key whose value
// is that kind's configuration; an update body carries the action's own kind key with the fields
// to change. Keys Parley does not know inside a configuration are kept and echoed (as for agents).
//
// Each kind's schema takes both Parley's form and the vendor's published form of that kind (the
// published fields are typed here; normalize.ts maps them onto the stored configuration once).
// What a form requires beyond its types (Parley's `name`, an extractor's `description`, a transfer's
// `phone` or `phone_book_id`) is checked by normalize.ts, which names the missing field.

/** Names of transfer, SMS and WhatsApp actions: kept exactly as typed, at most 64 characters. */
export const ACTION_NAME_MAX = 64;

// JSON Schema maxLength counts code points (ajv's `unicode` option), so an emoji is one character.
const ExactName = () =>
  NonEmptyString(
    ACTION_NAME_MAX,
    `Stored exactly as typed (no trimming); at most ${ACTION_NAME_MAX} characters. ` +
      'Optional: without it the action gets a default name (see the API notes).',
  );
const Name = () => NonEmptyString(200);
const Text = (maxLength = 4000, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const Flag = () => Type.Optional(Type.Boolean());

const open = <T extends TProperties>(properties: T, description?: string): TObject<T> =>
  Type.Object(properties, { additionalProperties: true, ...(description ? { description } : {}) });

const KeyValue = () => Type.Object({ key: NonEmptyString(200), value: Text() });
const KeyValues = (description?: string) =>
  Type.Array(KeyValue(), { maxItems: 100, ...(description ? { description } : {}) });

// ---- INFORMATION_EXTRACTOR ---------------------------------------------------------------------

/** Parley's `kind` of each published question key. */
export const QUESTION_KINDS = {
  YES_NO: 'yes_no',
  SINGLE_CHOICE: 'single_choice',
  OPEN_QUESTION: 'open_question',
} as const;
export type QuestionKey = keyof typeof QUESTION_KINDS;

const Identifier = () => NonEmptyString(200, 'The variable name the extracted value is stored under.');
const Choices = () => Type.Array(NonEmptyString(500), { maxItems: 100, description: 'For single_choice.' });
const Examples = () => Type.Array(Text(1000), { maxItems: 100 });
const QuestionDescription = () =>
  Text(4000, 'What to extract (also the trigger condition); without it, derived from the identifier.');

export const YesNoQuestion = open({
  identifier: Identifier(),
  description: Type.Optional(QuestionDescription()),
});
export const SingleChoiceQuestion = open({
  identifier: Identifier(),
  description: Type.Optional(QuestionDescription()),
  choices: Type.Optional(Choices()),
});
export const OpenQuestion = open({
  identifier: Identifier(),
  description: Type.Optional(QuestionDescription()),
  examples: Type.Optional(Examples()),
});

export const InformationExtractorConfig = open(
  {
    identifier: Type.Optional(Identifier()),
    description: Type.Optional(NonEmptyString(4000, 'What to extract; also the trigger condition.')),
    kind: Type.Optional(StringEnum(['yes_no', 'single_choice', 'open_question'] as const)),
    choices: Type.Optional(Choices()),
    examples: Type.Optional(Examples()),
    YES_NO: Type.Optional(YesNoQuestion),
    SINGLE_CHOICE: Type.Optional(SingleChoiceQuestion),
    OPEN_QUESTION: Type.Optional(OpenQuestion),
  },
  'Extracts a value from the conversation. Either flat `{identifier, description, kind, choices?, ' +
    'examples?}` or one question key (`YES_NO`, `SINGLE_CHOICE`, `OPEN_QUESTION`) holding ' +
    '`{identifier, description?, choices?|examples?}`; stored flat.',
);
export type InformationExtractorInput = Static<typeof InformationExtractorConfig>;

// ---- LIVE_TRANSFER -----------------------------------------------------------------------------

export const TRANSFER_MODES = ['cold_transfer', 'warm_transfer', 'warm_transfer_with_context'] as const;

/** `HH:MM`, 24-hour; `24:00` ends a day. */
const ClockTime = () => Type.String({ pattern: '^(?:(?:[01]\\d|2[0-3]):[0-5]\\d|24:00)$' });

export const HumanAvailability = Type.Object(
  {
    timezone: NonEmptyString(64, 'IANA time zone the schedule is in.'),
    schedule: Type.Array(
      Type.Object({
        weekday: StringEnum(WEEKDAY_NAMES),
        interval: Type.Array(Type.Object({ from: ClockTime(), to: ClockTime() }), {
          minItems: 1,
          maxItems: 10,
        }),
      }),
      { maxItems: 7, description: 'A weekday appears at most once.' },
    ),
    unavailable_message: Type.Optional(Text()),
    active: Type.Boolean(),
  },
  { description: 'When people take transfers; outside it a transfer fails and unavailable_message is said.' },
);

export const LiveTransferConfig = open(
  {
    name: Type.Optional(ExactName()),
    phone: Type.Optional(NonEmptyString(32, 'Where to transfer the call (E.164 or a sip: URI).')),
    phone_book_id: Type.Optional(
      NonEmptyString(
        200,
        'Accepted and kept; Parley has no phone books, so without `phone` the transfer fails.',
      ),
    ),
    transfer_mode: Type.Optional(StringEnum(TRANSFER_MODES)),
    instructions: Type.Optional(Text()),
    initiating_msg: Type.Optional(Text()),
    failed_msg: Type.Optional(Text()),
    goodbye_msg: Type.Optional(Text()),
    message_to_transfer_target: Type.Optional(Text()),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, description: 'Seconds.' })),
    digits: Type.Optional(Type.String({ maxLength: 32, pattern: '^[0-9*#wWpP,]*$' })),
    enable_background_music: Flag(),
    stop_recording_after_transfer: Flag(),
    human_detection: Flag(),
    human_detection_timeout_seconds: Type.Optional(Type.Integer({ minimum: 30, maximum: 1800 })),
    summarization_prompt: Type.Optional(Text()),
    preserve_caller_id: Flag(),
    screened: Flag(),
    human_availability: Type.Optional(HumanAvailability),
  },
  'Transfers the call to a person (`phone`, or the published `phone_book_id`).',
);

// ---- SEND_SMS, INCALL_SMS, INCALL_WHATSAPP -----------------------------------------------------

export const SendSmsConfig = open(
  {
    name: Type.Optional(ExactName()),
    content: NonEmptyString(1600, 'The message (sent after the call); may hold {variable} or <variable>.'),
    instructions: Type.Optional(Text()),
  },
  'Sends a text message after the call.',
);

export const InCallMessageConfig = open(
  {
    name: Type.Optional(ExactName()),
    message_body: Type.Optional(NonEmptyString(1600, 'May hold {variable} or <variable>.')),
    content_sid: Type.Optional(NonEmptyString(200, 'A provider message template.')),
    content_variables: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 20 }), Type.String({ maxLength: 1000 }), {
        maxProperties: 50,
        description:
          'The template\'s values by position, e.g. {"1": "<user_name>"}; values may hold variables.',
      }),
    ),
    wait_for_reply: Flag(),
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
    fallback_message: Type.Optional(Text(4000, 'Said when no reply comes in time.')),
    message_before_action: Type.Optional(Text(4000, 'Said before the message is sent.')),
  },
  'Sends a message during the call; message_body or content_sid is required.',
);

// ---- REAL_TIME_BOOKING -------------------------------------------------------------------------

export const RealTimeBookingConfig = open(
  {
    name: Type.Optional(Name()),
    timezone: NonEmptyString(64, 'IANA time zone.'),
    first_appt_date: Type.Optional(
      Type.String({ format: 'date', description: 'YYYY-MM-DD: the first day offered.' }),
    ),
    no_of_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'Default 3.' })),
    max_time_slots: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 3.' })),
    min_hours_diff: Type.Optional(Type.Number({ minimum: 0, maximum: 8760, description: 'Default 3.' })),
    calendar: Type.Optional(
      Type.Union([Type.String({ maxLength: 2000 }), Type.Object({}, { additionalProperties: true })]),
    ),
    CALCOM: Type.Optional(
      open(
        {
          event_id: Type.Optional(Type.Union([NonEmptyString(200), Type.Integer({ minimum: 1 })])),
          integration: Type.Optional(StringEnum(['GMeet', 'Zoom'] as const)),
          sms_boolean: Flag(),
          sms_message: Type.Optional(Text(1600)),
          user_email: Type.Optional(NonEmptyString(320)),
        },
        'The published Cal.com integration: kept as given; bookings go to `calendar`.',
      ),
    ),
    GHL: Type.Optional(
      open(
        {
          calendar_id: Type.Optional(NonEmptyString(200)),
          autoconfirm: Type.Optional(StringEnum(['confirmed', 'new'] as const)),
          booking_title: Type.Optional(Text(500)),
        },
        'The published GoHighLevel integration: kept as given; bookings go to `calendar`.',
      ),
    ),
  },
  'Books appointments in a calendar.',
);

// ---- CUSTOM_ACTION -----------------------------------------------------------------------------

export const HTTP_MODES = ['GET', 'POST', 'PUT', 'PATCH'] as const;

export const CallVariable = open({
  name: NonEmptyString(200),
  description: Type.Optional(Text()),
  example: Type.Optional(Text(1000)),
  type: Type.Optional(NonEmptyString(32, 'Default string.')),
});

const Template = 'May hold {variable} or <variable> placeholders.';

export const CustomActionConfig = open(
  {
    name: Name(),
    description: Type.Optional(Text(4000, 'When to use the action; also the trigger condition.')),
    http_mode: StringEnum(HTTP_MODES),
    url: HttpUrl(`The endpoint to call. ${Template}`),
    headers: Type.Optional(KeyValues(Template)),
    query_parameters: Type.Optional(
      Type.Union([KeyValues(Template), Type.Object({}, { additionalProperties: true })]),
    ),
    json_body_stringified: Type.Optional(
      Text(100_000, `A JSON document (text) sent as the body. ${Template}`),
    ),
    custom_auth: Type.Optional(
      open({
        is_needed: Flag(),
        location: Type.Optional(Text(32, '`header` (default) or `query`.')),
        key: Type.Optional(Text(200, 'The scheme for a header (default Bearer), the parameter for a query.')),
        value: Type.Optional(Text()),
      }),
    ),
    variables_before_the_call: Type.Optional(
      KeyValues(`Fixed placeholder values; a value may itself hold variables. ${Template}`),
    ),
    variables_during_the_call: Type.Optional(Type.Array(CallVariable, { maxItems: 100 })),
    run_action_before_call_start: Flag(),
    speech_while_using_the_tool: Type.Optional(Text()),
    message_before_action_starts: Type.Optional(Text()),
    failure_timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 600, description: 'Seconds.' })),
    message_error: Type.Optional(Text()),
    action_sound: Type.Optional(
      Type.Union([
        StringEnum([
          '',
          'typing',
          'ambient-background',
          'modern-jazz',
          'inspirational-symphony-classical-music',
        ] as const),
        Type.Null(),
      ]),
    ),
    integration: Type.Optional(StringEnum(['ghl', 'hubspot', 'salesforce', 'salesforce-sandbox'] as const)),
    agent_speak_naturally: Flag(),
    message_delay: Type.Optional(Text()),
    message_delay_time: Type.Optional(Type.Integer({ minimum: 0, maximum: 600, description: 'Seconds.' })),
    prompt: Type.Optional(Text(20_000)),
  },
  'Calls an HTTP endpoint.',
);

// ---- Bodies ------------------------------------------------------------------------------------

// ---- CUSTOM_EVAL -------------------------------------------------------------------------------

const EvalQuestionFields = {
  identifier: NonEmptyString(200, 'The name of the evaluation (also the action name).'),
  text: NonEmptyString(4000, 'The question asked about the conversation once it is over.'),
  category: Type.Optional(
    // The default is applied on create by normalize.ts (an update keeps the stored category).
    StringEnum(EVAL_CATEGORIES, {
      description:
        'The form of the answer: pass_fail (true/false), numeric (a number), likert_scale (1 to 5), ' +
        `descriptive (text). Default ${DEFAULT_EVAL_CATEGORY}.`,
    }),
  ),
  expected_result: Type.Optional(
    Text(4000, 'What the business expects (for pass_fail: true or false); kept and echoed.'),
  ),
};

export const EvalQuestion = open(EvalQuestionFields);

export const CustomEvalConfig = open(
  { question: EvalQuestion },
  'A question answered over the transcript after the conversation ends (no tool during it).',
);

/** An update merges into the stored question: every field is optional. */
const CustomEvalPatch = open({ question: Type.Optional(Type.Partial(EvalQuestion)) });

export const CreateActionBody = Type.Object(
  {
    REAL_TIME_BOOKING: Type.Optional(RealTimeBookingConfig),
    INFORMATION_EXTRACTOR: Type.Optional(InformationExtractorConfig),
    LIVE_TRANSFER: Type.Optional(LiveTransferConfig),
    SEND_SMS: Type.Optional(SendSmsConfig),
    INCALL_SMS: Type.Optional(InCallMessageConfig),
    INCALL_WHATSAPP: Type.Optional(InCallMessageConfig),
    CUSTOM_ACTION: Type.Optional(CustomActionConfig),
    CUSTOM_EVAL: Type.Optional(CustomEvalConfig),
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
    CUSTOM_EVAL: Type.Optional(CustomEvalPatch),
  },
  { description: "Only the action's own kind key; its fields are merged into the configuration." },
);
export type UpdateActionBody = Static<typeof UpdateActionBody>;

export const ActionIdParams = Type.Object({ action_id: NonEmptyString(100) });

export const GetActionQuery = Type.Object({
  include_assistants: Type.Boolean({
    default: false,
    description:
      'Adds `assistants` (the ids of the agents the action is attached to) and ' +
      '`input_variables.assistants` (each with its attachment settings).',
  }),
});

export const ListActionsQuery = Type.Object(limitOffsetQuery(20, 1000));

export const DetachActionsBody = Type.Object({
  model_id: NonEmptyString(100, 'The agent.'),
  actions: Type.Array(NonEmptyString(100), { minItems: 1, maxItems: 100, description: 'Action ids.' }),
});
export type DetachActionsBody = Static<typeof DetachActionsBody>;

export const ATTACHMENT_SOURCES = ['llm', 'hardcoded'] as const;

const VariableMappingItem = Type.Object({
  variable_name: NonEmptyString(200, "One of the custom action's `variables_during_the_call`."),
  source: StringEnum(ATTACHMENT_SOURCES, {
    description:
      '`hardcoded`: `hardcoded_value` fills it (the model is not asked); `llm`: the model fills it.',
  }),
  hardcoded_value: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  llm_config: Type.Optional(
    Type.Union([
      Type.Object({
        description: Type.Optional(Type.Union([Type.String({ maxLength: 4000 }), Type.Null()])),
        example: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
        required: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      }),
      Type.Null(),
    ]),
  ),
});

const AttachItem = Type.Object({
  action_id: Type.Optional(NonEmptyString(100, 'The action (this or `slug`).')),
  slug: Type.Optional(
    NonEmptyString(100, 'Parley actions have no slugs: a slug is looked up as an action id.'),
  ),
  attachment_type: Type.Optional(
    Type.Union([StringEnum(['before', 'during', 'after'] as const), Type.Null()], {
      description:
        '`during` (the default, also for null): as the kind runs; `before`: a custom action runs ' +
        'before the conversation; `after`: only for kinds that run after the end (SEND_SMS, CUSTOM_EVAL).',
    }),
  ),
  trigger_condition: Type.Optional(
    Type.Union([Type.String({ maxLength: 4000 }), Type.Null()], {
      description: 'When the agent should use the action; null or absent: unchanged; "": cleared.',
    }),
  ),
  input_variables_mapping: Type.Optional(
    Type.Array(VariableMappingItem, { maxItems: 100, description: 'Custom actions only.' }),
  ),
});

export const AttachActionsBody = Type.Object({
  model_id: NonEmptyString(100, 'The agent.'),
  actions: Type.Optional(Type.Array(NonEmptyString(100), { maxItems: 100, description: 'Action ids.' })),
  items: Type.Optional(
    Type.Array(AttachItem, { maxItems: 100, description: 'Actions with per-agent settings.' }),
  ),
});
export type AttachActionsBody = Static<typeof AttachActionsBody>;

export const InitializeActionBody = Type.Object({
  action_id: NonEmptyString(100, 'A CUSTOM_ACTION of the workspace.'),
  variables: Type.Optional(CustomVariablesInput("Values for the action's placeholders and variables.")),
});
export type InitializeActionBody = Static<typeof InitializeActionBody>;

export const InitializedAction = Type.Object({
  answer: Type.String({
    description: "The server's answer (JSON as text), or why the request failed.",
  }),
  ok: Type.Boolean({ description: 'The request got a 2xx answer.' }),
  status: Nullable(Type.Integer(), { description: 'The HTTP status of the answer (null: none).' }),
  error: Nullable(Type.String()),
});

// ---- Responses ---------------------------------------------------------------------------------

const ActionFields = {
  action_id: Type.String(),
  kind: StringEnum(ACTION_KINDS),
  action_type: Type.String(),
  name: Type.String(),
  description: Type.String({ description: "The action's description or instructions ('' when none)." }),
  config: Type.Object({}, { additionalProperties: true }),
  parameters_hard_coded: Type.Object(
    {},
    { additionalProperties: true, description: 'The configuration without name and description.' },
  ),
  assistants: Type.Optional(
    Type.Array(Type.String(), {
      description: 'The agents the action is attached to (`GET /actions/{id}?include_assistants=true`).',
    }),
  ),
  input_variables: Type.Object(
    {
      values: Type.Array(
        Type.Object({
          name: Type.String(),
          type: StringEnum(['string', 'integer', 'number', 'boolean'] as const),
          description: Type.String(),
          example: Type.String(),
        }),
      ),
      assistants: Type.Optional(
        Type.Array(
          Type.Object({
            model_id: Type.String(),
            attachment_type: StringEnum(['before', 'during', 'after'] as const),
            trigger_condition: Nullable(Type.String()),
            input_variables_mapping: Type.Array(
              Type.Object({
                variable_name: Type.String(),
                source: Type.String(),
                hardcoded_value: Nullable(Type.String()),
                llm_config: Nullable(
                  Type.Object({
                    description: Nullable(Type.String()),
                    example: Nullable(Type.String()),
                    required: Nullable(Type.Boolean()),
                  }),
                ),
              }),
            ),
          }),
          {
            description: 'Each agent the action is attached to, with its settings (include_assistants=true).',
          },
        ),
      ),
    },
    { description: 'What the action collects during the conversation.' },
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const ActionRead = Type.Object(ActionFields, { $id: 'Action', title: 'Action' });

/** One action read: the action itself, and (as published) a one-element `actions` array of it. */
export const ActionDetail = Type.Object({
  ...ActionFields,
  actions: Type.Array(Type.Ref('Action')),
});

export const ActionPage = Type.Object({
  pagination: PaginationSchema,
  actions: Type.Array(Type.Ref('Action')),
});

export const CreatedAction = Type.Object({
  action_id: Type.String(),
  action_type: Type.String(),
  prompt_variables: Type.Array(Type.String(), {
    description: "The variables the action's templates use that the conversation must provide.",
  }),
});

export const DeletedAction = Type.Object({ action_id: Type.String(), answer: Type.String() });
