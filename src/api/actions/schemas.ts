import { Type, type Static } from '@sinclair/typebox';
import {
  ACTION_KINDS,
  CustomActionInput,
  CustomEvalConfig,
  EvalQuestion,
  InCallMessageInput,
  InformationExtractorInput,
  LiveTransferInput,
  RealTimeBookingInput,
  SendSmsInput,
} from '../../core/index.ts';
import {
  CustomVariablesInput,
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
// published fields are typed in src/core/action-config.ts, where the stored configuration each
// kind's input becomes is written too; normalize.ts maps the published form onto it once).
// What a form requires beyond its types (Parley's `name`, an extractor's `description`, a transfer's
// `phone` or `phone_book_id`) is checked by normalize.ts, which names the missing field.

/** Parley's `kind` of each published question key. */
export const QUESTION_KINDS = {
  YES_NO: 'yes_no',
  SINGLE_CHOICE: 'single_choice',
  OPEN_QUESTION: 'open_question',
} as const;
export type QuestionKey = keyof typeof QUESTION_KINDS;

// ---- Bodies ------------------------------------------------------------------------------------

/** An update merges into the stored question: every field is optional. */
const CustomEvalPatch = Type.Object(
  { question: Type.Optional(Type.Partial(EvalQuestion)) },
  { additionalProperties: true },
);

export const CreateActionBody = Type.Object(
  {
    REAL_TIME_BOOKING: Type.Optional(RealTimeBookingInput),
    INFORMATION_EXTRACTOR: Type.Optional(InformationExtractorInput),
    LIVE_TRANSFER: Type.Optional(LiveTransferInput),
    SEND_SMS: Type.Optional(SendSmsInput),
    INCALL_SMS: Type.Optional(InCallMessageInput),
    INCALL_WHATSAPP: Type.Optional(InCallMessageInput),
    CUSTOM_ACTION: Type.Optional(CustomActionInput),
    CUSTOM_EVAL: Type.Optional(CustomEvalConfig),
  },
  { description: `Exactly one of: ${ACTION_KINDS.join(', ')}.` },
);
export type CreateActionBody = Static<typeof CreateActionBody>;

export const UpdateActionBody = Type.Object(
  {
    REAL_TIME_BOOKING: Type.Optional(Type.Partial(RealTimeBookingInput)),
    INFORMATION_EXTRACTOR: Type.Optional(Type.Partial(InformationExtractorInput)),
    LIVE_TRANSFER: Type.Optional(Type.Partial(LiveTransferInput)),
    SEND_SMS: Type.Optional(Type.Partial(SendSmsInput)),
    INCALL_SMS: Type.Optional(Type.Partial(InCallMessageInput)),
    INCALL_WHATSAPP: Type.Optional(Type.Partial(InCallMessageInput)),
    CUSTOM_ACTION: Type.Optional(Type.Partial(CustomActionInput)),
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
