import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { HttpUrl, NonEmptyString, StringEnum } from './schema-types.ts';

// Each action kind's configuration (WIRE.md section 8), written once. For each kind:
// - `<Kind>Input` is what the API accepts for it (src/api/actions builds its request bodies from
//   these): Parley's form, and for some kinds the vendor's published form, which
//   src/api/actions/normalize.ts maps onto Parley's before the store keeps it;
// - `<Kind>Config` is what the store keeps and returns, and what src/actions runs: the input as
//   normalized (an extractor's flat form, the default name the API fills in). Where the runtime
//   reads more than the API accepts (a custom action without `http_mode`, its `custom_auth` as a
//   text), the stored form says so.
// The store parses a row's configuration once into `ActionConfigs[kind]` (src/store/actions.ts),
// checking it with these schemas without the text limits (`storedActionConfigs`), so no reader
// casts it. Every configuration keeps keys the schemas do not name, as the API accepts them.

export const ACTION_KINDS = [
  'REAL_TIME_BOOKING',
  'INFORMATION_EXTRACTOR',
  'LIVE_TRANSFER',
  'SEND_SMS',
  'INCALL_SMS',
  'INCALL_WHATSAPP',
  'CUSTOM_ACTION',
  'CUSTOM_EVAL',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

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

const KeyValueSchema = () => Type.Object({ key: NonEmptyString(200), value: Text() });
const KeyValues = (description?: string) =>
  Type.Array(KeyValueSchema(), { maxItems: 100, ...(description ? { description } : {}) });

// ---- INFORMATION_EXTRACTOR ---------------------------------------------------------------------

export const EXTRACTOR_KINDS = ['yes_no', 'single_choice', 'open_question'] as const;
export type ExtractorKind = (typeof EXTRACTOR_KINDS)[number];

const Identifier = () => NonEmptyString(200, 'The variable name the extracted value is stored under.');
const Choices = () => Type.Array(NonEmptyString(500), { maxItems: 100, description: 'For single_choice.' });
const Examples = () => Type.Array(Text(1000), { maxItems: 100 });
const QuestionDescription = () =>
  Text(4000, 'What to extract (also the trigger condition); without it, derived from the identifier.');

const YesNoQuestion = open({
  identifier: Identifier(),
  description: Type.Optional(QuestionDescription()),
});
const SingleChoiceQuestion = open({
  identifier: Identifier(),
  description: Type.Optional(QuestionDescription()),
  choices: Type.Optional(Choices()),
});
const OpenQuestion = open({
  identifier: Identifier(),
  description: Type.Optional(QuestionDescription()),
  examples: Type.Optional(Examples()),
});

/** The stored (flat) extractor. */
export const InformationExtractorConfig = open({
  identifier: Identifier(),
  description: NonEmptyString(4000, 'What to extract; also the trigger condition.'),
  kind: StringEnum(EXTRACTOR_KINDS),
  choices: Type.Optional(Choices()),
  examples: Type.Optional(Examples()),
});
export type InformationExtractorConfig = Static<typeof InformationExtractorConfig>;

const flat = InformationExtractorConfig.properties;

/** The flat form with every field optional, or one published question key holding the question. */
export const InformationExtractorInput = open(
  {
    identifier: Type.Optional(flat.identifier),
    description: Type.Optional(flat.description),
    kind: Type.Optional(flat.kind),
    choices: flat.choices,
    examples: flat.examples,
    YES_NO: Type.Optional(YesNoQuestion),
    SINGLE_CHOICE: Type.Optional(SingleChoiceQuestion),
    OPEN_QUESTION: Type.Optional(OpenQuestion),
  },
  'Extracts a value from the conversation. Either flat `{identifier, description, kind, choices?, ' +
    'examples?}` or one question key (`YES_NO`, `SINGLE_CHOICE`, `OPEN_QUESTION`) holding ' +
    '`{identifier, description?, choices?|examples?}`; stored flat.',
);
export type InformationExtractorInput = Static<typeof InformationExtractorInput>;

// ---- LIVE_TRANSFER -----------------------------------------------------------------------------

export const TRANSFER_MODES = ['cold_transfer', 'warm_transfer', 'warm_transfer_with_context'] as const;

export const WEEKDAY_NAMES = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
export type WeekdayName = (typeof WEEKDAY_NAMES)[number];

/** `HH:MM`, 24-hour; `24:00` ends a day. */
const ClockTime = () => Type.String({ pattern: '^(?:(?:[01]\\d|2[0-3]):[0-5]\\d|24:00)$' });

/** When people take transfers: `HH:MM` intervals per weekday, in `timezone`. */
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
export type HumanAvailability = Static<typeof HumanAvailability>;

export const LiveTransferInput = open(
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

/** A transfer as stored: the API gives it a name when the body has none. */
export const LiveTransferConfig = open({ ...LiveTransferInput.properties, name: ExactName() });
export type LiveTransferConfig = Static<typeof LiveTransferConfig>;

// ---- SEND_SMS, INCALL_SMS, INCALL_WHATSAPP -----------------------------------------------------

export const SendSmsInput = open(
  {
    name: Type.Optional(ExactName()),
    content: NonEmptyString(1600, 'The message (sent after the call); may hold {variable} or <variable>.'),
    instructions: Type.Optional(Text()),
  },
  'Sends a text message after the call.',
);

export const SendSmsConfig = open({ ...SendSmsInput.properties, name: ExactName() });
export type SendSmsConfig = Static<typeof SendSmsConfig>;

export const InCallMessageInput = open(
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

/** As stored: named, and a `description` (a key the API keeps) is the tool's description. */
export const InCallMessageConfig = open({
  ...InCallMessageInput.properties,
  name: ExactName(),
  description: Type.Optional(Type.String()),
});
export type InCallMessageConfig = Static<typeof InCallMessageConfig>;

// ---- REAL_TIME_BOOKING -------------------------------------------------------------------------

export const RealTimeBookingInput = open(
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

/** As stored: named (the API's default name when the body has none). */
export const RealTimeBookingConfig = open({ ...RealTimeBookingInput.properties, name: Name() });
export type RealTimeBookingConfig = Static<typeof RealTimeBookingConfig>;

// ---- CUSTOM_ACTION -----------------------------------------------------------------------------

export const HTTP_MODES = ['GET', 'POST', 'PUT', 'PATCH'] as const;

export const CallVariable = open({
  name: NonEmptyString(200),
  description: Type.Optional(Text()),
  example: Type.Optional(Text(1000)),
  type: Type.Optional(NonEmptyString(32, 'Default string.')),
});
export type CallVariable = Static<typeof CallVariable>;

const Template = 'May hold {variable} or <variable> placeholders.';

const CustomAuthObject = open({
  is_needed: Flag(),
  location: Type.Optional(Text(32, '`header` (default) or `query`.')),
  key: Type.Optional(Text(200, 'The scheme for a header (default Bearer), the parameter for a query.')),
  value: Type.Optional(Text()),
});

export const CustomActionInput = open(
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
    custom_auth: Type.Optional(CustomAuthObject),
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

/**
 * As the runtime runs it: `http_mode` may be absent (GET), and `custom_auth` may also be a text
 * sent as the Authorization header verbatim, or null.
 */
export const CustomActionConfig = open({
  ...CustomActionInput.properties,
  http_mode: Type.Optional(StringEnum(HTTP_MODES)),
  custom_auth: Type.Optional(Type.Union([CustomAuthObject, Type.String(), Type.Null()])),
});
export type CustomActionConfig = Static<typeof CustomActionConfig>;
export type KeyValue = Static<ReturnType<typeof KeyValueSchema>>;
export type CustomAuth = Static<typeof CustomAuthObject>;

// ---- CUSTOM_EVAL -------------------------------------------------------------------------------

export const EVAL_CATEGORIES = ['pass_fail', 'numeric', 'descriptive', 'likert_scale'] as const;
export type EvalCategory = (typeof EVAL_CATEGORIES)[number];
export const DEFAULT_EVAL_CATEGORY: EvalCategory = 'pass_fail';

export const EvalQuestion = open({
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
});

/** Accepted and stored alike. */
export const CustomEvalConfig = open(
  { question: EvalQuestion },
  'A question answered over the transcript after the conversation ends (no tool during it).',
);
export type CustomEvalConfig = Static<typeof CustomEvalConfig>;

// ---- Every kind --------------------------------------------------------------------------------

/** The stored configuration's schema of each kind. */
export const ACTION_CONFIGS = {
  REAL_TIME_BOOKING: RealTimeBookingConfig,
  INFORMATION_EXTRACTOR: InformationExtractorConfig,
  LIVE_TRANSFER: LiveTransferConfig,
  SEND_SMS: SendSmsConfig,
  INCALL_SMS: InCallMessageConfig,
  INCALL_WHATSAPP: InCallMessageConfig,
  CUSTOM_ACTION: CustomActionConfig,
  CUSTOM_EVAL: CustomEvalConfig,
} as const satisfies Record<ActionKind, TObject>;

/** The stored configuration of each kind. */
export type ActionConfigs = { [K in ActionKind]: Static<(typeof ACTION_CONFIGS)[K]> };
export type ActionConfig = ActionConfigs[ActionKind];

/** A kind with its configuration; narrowing on `kind` types `config`. */
export type KindConfig<K extends ActionKind = ActionKind> = {
  [P in K]: { kind: P; config: ActionConfigs[P] };
}[K];

/**
 * The configuration a stored one that lacks a field its kind requires falls back to, field by
 * field: texts empty (the name, or an extractor's identifier, from the action's own name), an
 * extractor's kind `open_question` (how one without a kind runs). It runs as such a configuration
 * did before it was typed: an empty URL fails its request, an empty question is not asked.
 */
const EMPTY_CONFIGS: { [K in ActionKind]: (name: string) => ActionConfigs[K] } = {
  REAL_TIME_BOOKING: (name) => ({ name, timezone: '' }),
  INFORMATION_EXTRACTOR: (name) => ({ identifier: name, description: '', kind: 'open_question' }),
  LIVE_TRANSFER: (name) => ({ name }),
  SEND_SMS: (name) => ({ name, content: '' }),
  INCALL_SMS: (name) => ({ name }),
  INCALL_WHATSAPP: (name) => ({ name }),
  CUSTOM_ACTION: (name) => ({ name, url: '' }),
  CUSTOM_EVAL: (name) => ({ question: { identifier: name, text: '' } }),
};

export function emptyActionConfig<K extends ActionKind>(kind: K, name: string): ActionConfigs[K] {
  return EMPTY_CONFIGS[kind](name);
}

/**
 * A copy of `schema` without the text limits (`maxLength`, `minLength`) and formats. TypeBox counts
 * a string's UTF-16 units where the API's validator (Ajv) counts code points, and knows no formats
 * unless registered: the check of what the store reads back must not drop what the API accepted.
 * Property names are kept whatever they are.
 */
function withoutTextLimits<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutTextLimits) as T;
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<PropertyKey, unknown> = {};
  const source = schema as Record<PropertyKey, unknown>;
  for (const key of Reflect.ownKeys(schema)) {
    if (key === 'maxLength' || key === 'minLength' || key === 'format') continue;
    const value = source[key];
    copy[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, field]) => [name, withoutTextLimits(field)]))
        : withoutTextLimits(value);
  }
  return copy as T;
}

/** The checks for configurations read back from the store: ACTION_CONFIGS without text limits. */
export const storedActionConfigs: typeof ACTION_CONFIGS = {
  REAL_TIME_BOOKING: withoutTextLimits(RealTimeBookingConfig),
  INFORMATION_EXTRACTOR: withoutTextLimits(InformationExtractorConfig),
  LIVE_TRANSFER: withoutTextLimits(LiveTransferConfig),
  SEND_SMS: withoutTextLimits(SendSmsConfig),
  INCALL_SMS: withoutTextLimits(InCallMessageConfig),
  INCALL_WHATSAPP: withoutTextLimits(InCallMessageConfig),
  CUSTOM_ACTION: withoutTextLimits(CustomActionConfig),
  CUSTOM_EVAL: withoutTextLimits(CustomEvalConfig),
};
