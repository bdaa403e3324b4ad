import { Type, type TSchema } from '@sinclair/typebox';
import { CALL_SUCCESS_TYPES, SIMULATION_CASE_TYPES } from '../../store/index.ts';
import {
  NonEmptyString,
  Nullable as NullableField,
  PaginationSchema,
  StringEnum,
} from '../schemas/common.ts';

// Simulation cases and suites (spec "Simulation cases" and "Simulation suites", WIRE.md section 7).

export const MAX_CRITERIA = 50;
export const MAX_CASE_IDS = 500;
export const MAX_MODEL_IDS = 100;

const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', maxLength: 36, ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const CaseName = NonEmptyString(200, 'The case name (searchable).');
const CasePrompt = NonEmptyString(20_000, "The simulated caller's persona and goal.");
const Criteria = Type.Array(NonEmptyString(2000), {
  maxItems: MAX_CRITERIA,
  description: 'What the call must achieve, one statement each; at least one (an empty list is a 422).',
});
const CaseType = StringEnum(SIMULATION_CASE_TYPES, {
  description: 'custom: written by hand; agent_based: derived from an agent (needs a base agent or a suite).',
});
const SuccessType = StringEnum(CALL_SUCCESS_TYPES, {
  description: 'all: every criterion must pass; any: one is enough.',
});
const SuiteIdField = Nullable(Uuid('The suite the case belongs to (its agent must be the base agent).'));
const BaseAgentField = Nullable(NonEmptyString(100, 'The agent (model_id) the case was written for.'));

export const CreateCaseBody = Type.Object({
  name: CaseName,
  prompt: CasePrompt,
  type: Type.Optional(
    StringEnum(SIMULATION_CASE_TYPES, { description: 'Default custom.', default: 'custom' }),
  ),
  success_criteria: Criteria,
  call_success_type: Type.Optional(
    StringEnum(CALL_SUCCESS_TYPES, { description: 'Default all.', default: 'all' }),
  ),
  suite_id: Type.Optional(SuiteIdField),
  base_agent_id: Type.Optional(BaseAgentField),
});

/** On updates, null stands for "not given" (the published update bodies are all nullable). */
const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const UpdateCaseBody = Type.Object({
  name: Type.Optional(OrNull(CaseName)),
  prompt: Type.Optional(OrNull(CasePrompt)),
  type: Type.Optional(OrNull(CaseType)),
  success_criteria: Type.Optional(OrNull(Criteria)),
  call_success_type: Type.Optional(OrNull(SuccessType)),
  suite_id: Type.Optional(SuiteIdField),
  base_agent_id: Type.Optional(BaseAgentField),
});

export const CaseRecord = Type.Object(
  {
    simulation_case_id: Type.String(),
    workspace_id: Type.String(),
    suite_id: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    prompt: Type.String(),
    type: CaseType,
    success_criteria: Type.Array(Type.String()),
    call_success_type: SuccessType,
    base_agent_id: Type.Union([Type.String(), Type.Null()]),
    base_agent: NullableField(
      Type.Object({
        model_id: Type.String(),
        agent_name: Type.String(),
        agent_type: Type.String(),
        voice_engine_type: Type.String({
          description: 'Always empty: Parley does not split voices by engine.',
        }),
        phone_number: NullableField(Type.String()),
        updated_at: Type.String({ format: 'date-time' }),
        image_url: Type.Null(),
      }),
      { description: 'The base agent; null when there is none or it was deleted.' },
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Simulation case' },
);

export const Paging = {
  page_number: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1, description: 'From 1.' }),
  page_size: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page.' }),
};

export const ListCasesQuery = Type.Object({
  ...Paging,
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the name, any case.' })),
  simulation_case_type: Type.Optional(CaseType),
  suite_id: Type.Optional(Uuid('Cases of this suite.')),
});

export const CaseIdParams = Type.Object({ simulation_case_id: Uuid() });

export const ByAgentQuery = Type.Object({
  agent_id: NonEmptyString(100, 'The agent: cases based on it and cases in its suites.'),
});

export const CasePage = Type.Object({
  pagination: Type.Object(PaginationSchema.properties, {
    description: 'The same page as limit/offset: limit = page_size, offset = (page_number - 1) * page_size.',
  }),
  items: Type.Array(CaseRecord),
  total: Type.Integer(),
  page_number: Type.Integer(),
  page_size: Type.Integer(),
});

const SuiteName = NonEmptyString(200, 'The suite name (searchable).');
const Language = NonEmptyString(35, 'The language the simulated callers speak (BCP 47, default en-US).');

export const CreateSuiteBody = Type.Object({
  name: SuiteName,
  model_id: NonEmptyString(100, 'The agent the suite tests; it can only be executed on that agent.'),
  language: Type.Optional(Language),
  case_ids: Type.Optional(
    Type.Array(Uuid(), {
      maxItems: MAX_CASE_IDS,
      description: 'Existing cases to move into the suite (out of any other suite).',
    }),
  ),
});

export const UpdateSuiteBody = Type.Object({
  name: Type.Optional(OrNull(SuiteName)),
  language: Type.Optional(OrNull(Language)),
  model_id: Type.Optional(
    OrNull(NonEmptyString(100, "Accepted only when equal to the suite's agent: a suite stays on its agent.")),
  ),
});

export const SuiteRecord = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    model_id: Type.String(),
    workspace_id: Type.String(),
    language: Type.String(),
    cases: Type.Array(CaseRecord, { description: 'The cases in the suite, in the order created.' }),
    case_summaries: Type.Array(Type.Object({ simulation_case_id: Type.String(), name: Type.String() }), {
      description: 'The cases again, id and name only.',
    }),
    agent: Type.Object(
      { id: Type.String(), name: Type.String(), avatar: Type.Null() },
      { description: "The suite's agent (model_id); the name is empty once the agent is deleted." },
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Simulation suite' },
);

export const ListSuitesQuery = Type.Object({
  ...Paging,
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the name, any case.' })),
  model_ids: Type.Optional(
    Type.Array(NonEmptyString(100), {
      maxItems: MAX_MODEL_IDS,
      description: 'Suites of these agents: repeated (model_ids=a&model_ids=b) or comma-separated.',
    }),
  ),
  start_date: Type.Optional(
    Type.String({ format: 'date-time', description: 'Created at or after (ISO 8601 date-time).' }),
  ),
  end_date: Type.Optional(
    Type.String({ format: 'date-time', description: 'Created at or before (ISO 8601 date-time).' }),
  ),
});

export const SuiteIdParams = Type.Object({ suite_id: Uuid() });

export const SuitePage = Type.Object({
  items: Type.Array(SuiteRecord),
  total: Type.Integer(),
  page_number: Type.Integer(),
  page_size: Type.Integer(),
});

export const NoContent = Type.Null({ description: 'No content.' });
