import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { invalidInput, isUuid, notFound, toVariableMap } from '../../core/index.ts';
import type { ModelRouter } from '../../providers/index.ts';
import {
  SIMULATION_TEST_KINDS,
  generateCases,
  unprocessable,
  type GenerationAction,
  type SimulationService,
} from '../../simulation/index.ts';
import {
  CALL_SUCCESS_TYPES,
  type SimulationCase,
  type SimulationRun,
  type SimulationSession,
  type Store,
} from '../../store/index.ts';
import { ok } from '../envelope.ts';
import {
  CustomVariablesInput,
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  errorResponses,
  okEnvelope,
} from '../schemas/common.ts';
import { agentBriefs, presentCase, presentRun, presentSession } from './present.ts';
import { Paging } from './schemas.ts';

// Running simulations (spec "Simulation suites" execute, WIRE.md section 7): executing a suite,
// starting one case alone (the published `POST /simulations`), reading and listing sessions and
// simulations, and generating cases as an NDJSON stream.

const TAG = ['Simulations'];

const DEFAULT_MAX_TURNS = 20;
const MaxTurns = (options: { default?: number; description: string }) =>
  Type.Integer({ minimum: 10, maximum: 50, ...options });
const ACTION_MODES = ['recorded', 'live'] as const;
const ACTIONS_DESCRIPTION =
  "Parley's addition: `recorded` runs the agent's actions against stand-ins (nothing leaves Parley), `live` against their real systems.";

const ExecuteQuery = Type.Object({
  target_agent_id: NonEmptyString(100, "Must be the suite's model_id."),
  max_turns: MaxTurns({ default: DEFAULT_MAX_TURNS, description: 'Caller turns per simulation.' }),
  actions: StringEnum(ACTION_MODES, { default: 'recorded', description: ACTIONS_DESCRIPTION }),
});

const Uuid = (description: string) => Type.String({ format: 'uuid', maxLength: 36, description });

const StartBody = Type.Object({
  simulation_case_id: Uuid('The case to run.'),
  target_agent_id: NonEmptyString(100, 'The agent to test (a model_id).'),
  simulation_session_id: Type.Optional(
    Type.Union([
      Uuid('A session of the same agent to add the simulation to; none: a new session.'),
      Type.Null(),
    ]),
  ),
  custom_variables: Type.Optional(
    Type.Union([
      CustomVariablesInput("Values for `{placeholders}` of the agent's prompt and greeting."),
      Type.Null(),
    ]),
  ),
  max_turns: Type.Optional(
    MaxTurns({
      description: `Parley's addition: caller turns (default ${DEFAULT_MAX_TURNS}); a joined session keeps its own.`,
    }),
  ),
  actions: Type.Optional(
    StringEnum(ACTION_MODES, { description: `${ACTIONS_DESCRIPTION} Default recorded.` }),
  ),
});

const DateBound = (description: string) => Type.String({ format: 'date-time', description });

const ListSessionsQuery = Type.Object({
  ...Paging,
  target_agent_id: Type.Optional(NonEmptyString(100, 'Sessions testing this agent.')),
  start_date: Type.Optional(DateBound('Created at or after (ISO 8601 date-time with a time zone).')),
  end_date: Type.Optional(DateBound('Created at or before (ISO 8601 date-time with a time zone).')),
});

const ListSimulationsQuery = Type.Object({
  ...Paging,
  simulation_session_id: Type.Optional(Uuid('Simulations of this session.')),
  status: Type.Optional(
    StringEnum(['in-progress', 'completed', 'failed'] as const, {
      description: 'in-progress includes the simulations waiting to start.',
    }),
  ),
  target_agent_id: Type.Optional(NonEmptyString(100, 'Simulations testing this agent.')),
  start_date: Type.Optional(DateBound('Created at or after (ISO 8601 date-time with a time zone).')),
  end_date: Type.Optional(DateBound('Created at or before (ISO 8601 date-time with a time zone).')),
});

/** A page list: WIRE.md's fields and the published `pagination`. */
const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    pagination: Type.Object(PaginationSchema.properties, {
      description:
        'The same page as limit/offset: limit = page_size, offset = (page_number - 1) * page_size.',
    }),
    items: Type.Array(item),
    total: Type.Integer(),
    page_number: Type.Integer(),
    page_size: Type.Integer(),
  });

function pageBody<T>(items: T[], total: number, q: { page_number: number; page_size: number }) {
  return {
    pagination: {
      total_records: total,
      limit: q.page_size,
      offset: Math.min((q.page_number - 1) * q.page_size, 2_147_483_647),
    },
    items,
    total,
    page_number: q.page_number,
    page_size: q.page_size,
  };
}

/** `start_date`/`end_date` in ms (the schema checked their form); the end may not precede the start. */
function dateRange(q: { start_date?: string; end_date?: string }): { startDate?: number; endDate?: number } {
  const startDate = q.start_date === undefined ? undefined : Date.parse(q.start_date);
  const endDate = q.end_date === undefined ? undefined : Date.parse(q.end_date);
  for (const [field, ms] of [
    ['start_date', startDate],
    ['end_date', endDate],
  ] as const) {
    if (ms !== undefined && !Number.isFinite(ms))
      throw invalidInput(`query.${field} must be an ISO 8601 date-time with a time zone`, ['query', field]);
  }
  if (startDate !== undefined && endDate !== undefined && startDate > endDate)
    throw invalidInput('query.end_date must not be before query.start_date', ['query', 'end_date']);
  return { ...(startDate !== undefined ? { startDate } : {}), ...(endDate !== undefined ? { endDate } : {}) };
}

const Verdict = Type.Object({ criterion: Type.String(), passed: Type.Boolean(), reason: Type.String() });
const SimulationRecord = Type.Object({
  simulation_id: Type.String(),
  simulation_session_id: Type.String(),
  simulation_case_id: Type.String(),
  status: StringEnum(['in-progress', 'completed', 'failed'] as const),
  passed: Nullable(Type.Boolean()),
  criteria_results: Type.Array(Verdict),
  transcript: Type.String(),
  turns: Type.Integer(),
  error: Nullable(Type.String()),
  // The published simulation record's fields.
  simulation_case_name: Nullable(Type.String(), { description: 'null once the case is deleted.' }),
  simulation_case_prompt: Nullable(Type.String()),
  success_criteria: Nullable(Type.Array(Type.String())),
  call_success_type: Type.Union([StringEnum(CALL_SUCCESS_TYPES), Type.Null()]),
  target_agent_id: Type.String({ description: 'The agent tested (the session model_id).' }),
  agent_name: Nullable(Type.String(), { description: 'null once the agent is deleted.' }),
  agent_avatar_url: Type.Null(),
  persona_agent_id: Type.Null({ description: 'The simulated caller is not an agent of the workspace.' }),
  persona_phone_number: Type.Null({ description: 'Simulations are text conversations: no phone call.' }),
  target_phone_number: Type.Null(),
  target_call_id: Type.Null(),
  recording_url: Type.Null(),
  custom_variables: Nullable(
    Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    { description: 'The variables a simulation started alone runs with; null for a suite execution.' },
  ),
  workspace_id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  error_info: Nullable(Type.Object({ message: Type.String(), code: Type.Integer(), type: Type.String() }), {
    description: '`error` as an object (code 500, type simulation_failed); null unless failed.',
  }),
  timeline: Nullable(
    Type.Array(
      Type.Object({
        sender_type: Nullable(Type.String()),
        value: Nullable(Type.String()),
        type: Nullable(Type.String()),
        timestamp_datetime: Type.Null(),
        timestamp: Type.Null(),
      }),
    ),
    { description: 'The transcript, one item per turn (sender_type agent or user); null while empty.' },
  ),
  success_criteria_analysis: Nullable(
    Type.Object({
      success: Type.Boolean(),
      evaluations: Type.Array(Type.Object({ success: Type.Boolean(), reasoning: Type.String() })),
    }),
    { description: '`passed` and `criteria_results` in the published shape; null until judged.' },
  ),
});
const SessionRecord = Type.Object({
  simulation_session_id: Type.String(),
  suite_id: Type.String(),
  model_id: Type.String(),
  status: StringEnum(['in-progress', 'completed'] as const),
  max_turns: Type.Integer(),
  simulations: Type.Array(SimulationRecord),
  total_simulations: Type.Integer(),
  completed_simulations: Type.Integer(),
  failed_simulations: Type.Integer(),
  pending_simulations: Type.Integer(),
  created_at: Type.String(),
});

const GenerateBody = Type.Object({
  agent_id: NonEmptyString(100),
  suite_id: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: 'Default 5.' })),
  scenarios: Type.Optional(Type.Array(NonEmptyString(2000), { maxItems: 20 })),
  include_tests: Type.Optional(Type.Array(StringEnum(SIMULATION_TEST_KINDS), { maxItems: 7 })),
});

export interface SimulationRunRoutesOptions {
  store: Store;
  simulations: SimulationService;
  models: ModelRouter;
}

export const simulationRunRoutes: FastifyPluginAsyncTypebox<SimulationRunRoutesOptions> = async (
  app,
  options,
) => {
  const { store, simulations, models } = options;

  const idParam = (name: string) => Type.Object({ [name]: NonEmptyString(100) });
  const uuidOr400 = (id: string, loc: string[]) => {
    if (!isUuid(id)) throw invalidInput(`${loc.join('.')} must be a UUID`, loc);
  };

  app.post(
    '/simulation_suites/:suite_id/execute',
    {
      schema: {
        tags: TAG,
        summary:
          'Run every case of a suite on its agent (in the background); read the results from the session',
        params: idParam('suite_id'),
        querystring: ExecuteQuery,
        response: {
          200: okEnvelope(
            Type.Object({
              session_id: Type.String(),
              suite_id: Type.String(),
              suite_name: Type.String(),
              total_cases: Type.Integer(),
              status: Type.String(),
            }),
          ),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const workspace = request.workspace;
      const { suite_id: suiteId } = request.params as { suite_id: string };
      uuidOr400(suiteId, ['params', 'suite_id']);
      const suite = await store.simulations.getSuite(workspace.id, suiteId);
      if (!suite) throw notFound(`simulation suite ${suiteId} not found`);
      const q = request.query;
      if (q.target_agent_id !== suite.modelId)
        throw invalidInput(
          `query.target_agent_id must be the suite's agent (${suite.modelId}); a suite runs only on its own agent`,
          ['query', 'target_agent_id'],
        );
      const agent = await store.agents.get(workspace.id, suite.modelId);
      if (!agent) throw notFound(`query.target_agent_id: agent ${suite.modelId} no longer exists`, 400);
      const session = await simulations.execute(workspace, suite, agent, {
        maxTurns: q.max_turns,
        actions: q.actions,
      });
      return ok({
        session_id: session.id,
        suite_id: suite.id,
        suite_name: suite.name,
        total_cases: session.total,
        status: session.status,
      });
    },
  );

  /** A session with its simulations, their cases and the agent's name. */
  async function readSession(workspaceId: string, id: string, loc: string[]) {
    uuidOr400(id, loc);
    const session = await store.simulationRuns.getSession(workspaceId, id);
    if (!session) throw notFound(`simulation session ${id} not found`);
    const runs = await store.simulationRuns.runsOfSession(session.id);
    const cases = await store.simulations.getCases(workspaceId, [...new Set(runs.map((r) => r.caseId))]);
    return presentSession(
      session,
      runs,
      new Map(cases.map((c) => [c.id, c])),
      await agentName(workspaceId, session),
    );
  }

  async function agentName(workspaceId: string, session: SimulationSession | null): Promise<string | null> {
    return session ? ((await store.agents.get(workspaceId, session.modelId))?.name ?? null) : null;
  }

  /** The names of these agents that still exist. */
  async function agentNames(workspaceId: string, ids: Iterable<string>): Promise<Map<string, string>> {
    const agents = await Promise.all([...new Set(ids)].map((id) => store.agents.get(workspaceId, id)));
    return new Map(agents.filter((a) => a !== null).map((a) => [a.id, a.name]));
  }

  async function casesById(workspaceId: string, runs: readonly SimulationRun[]) {
    const cases = await store.simulations.getCases(workspaceId, [...new Set(runs.map((r) => r.caseId))]);
    return new Map<string, SimulationCase>(cases.map((c) => [c.id, c]));
  }

  app.post(
    '/simulations',
    {
      schema: {
        tags: TAG,
        summary:
          'Run one case on an agent (in the background), in a new session or added to one; answers the simulation',
        body: StartBody,
        response: { 200: okEnvelope(SimulationRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const workspace = request.workspace;
      const body = request.body;
      const testCase = await store.simulations.getCase(workspace.id, body.simulation_case_id);
      if (!testCase)
        throw notFound(`body.simulation_case_id: simulation case ${body.simulation_case_id} not found`);
      const agent = await store.agents.get(workspace.id, body.target_agent_id);
      if (!agent) throw notFound(`body.target_agent_id: agent ${body.target_agent_id} not found`);
      const sessionId = body.simulation_session_id ?? undefined;
      if (sessionId !== undefined) {
        const session = await store.simulationRuns.getSession(workspace.id, sessionId);
        if (!session) throw notFound(`body.simulation_session_id: simulation session ${sessionId} not found`);
        if (session.modelId !== agent.id)
          throw invalidInput(
            `body.target_agent_id must be the agent of session ${session.id} (${session.modelId}); a session tests one agent`,
            ['body', 'target_agent_id'],
          );
        if (body.max_turns !== undefined && body.max_turns !== session.maxTurns)
          throw invalidInput(
            `body.max_turns must be the session's own (${session.maxTurns}) or left out when joining a session`,
            ['body', 'max_turns'],
          );
      }
      const started = await simulations.run(workspace, testCase, agent, {
        ...(sessionId !== undefined ? { sessionId } : {}),
        maxTurns: body.max_turns ?? DEFAULT_MAX_TURNS,
        actions: body.actions ?? 'recorded',
        customVariables:
          body.custom_variables === undefined || body.custom_variables === null
            ? null
            : toVariableMap(body.custom_variables),
      });
      if (!started) throw notFound(`body.simulation_session_id: simulation session ${sessionId} not found`);
      return ok(presentRun(started.run, { session: started.session, testCase, agentName: agent.name }));
    },
  );

  app.get(
    '/simulations',
    {
      schema: {
        tags: TAG,
        summary: "The workspace's simulations, newest first",
        querystring: ListSimulationsQuery,
        response: { 200: okEnvelope(PageOf(SimulationRecord)), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const ws = request.workspace.id;
      const page = await store.simulationRuns.listRuns(ws, {
        pageNumber: q.page_number,
        pageSize: q.page_size,
        ...dateRange(q),
        ...(q.simulation_session_id !== undefined ? { sessionId: q.simulation_session_id } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.target_agent_id !== undefined ? { modelId: q.target_agent_id } : {}),
      });
      const sessions = new Map(
        (await store.simulationRuns.getSessions(ws, [...new Set(page.items.map((r) => r.sessionId))])).map(
          (s) => [s.id, s],
        ),
      );
      const [cases, names] = await Promise.all([
        casesById(ws, page.items),
        agentNames(
          ws,
          [...sessions.values()].map((s) => s.modelId),
        ),
      ]);
      const items = page.items.map((run) => {
        const session = sessions.get(run.sessionId) ?? null;
        return presentRun(run, {
          session,
          testCase: cases.get(run.caseId),
          agentName: session ? (names.get(session.modelId) ?? null) : null,
        });
      });
      return ok(pageBody(items, page.total, q));
    },
  );

  app.get(
    '/simulations/sessions',
    {
      schema: {
        tags: TAG,
        summary: "The workspace's sessions with their simulations, newest first",
        querystring: ListSessionsQuery,
        response: { 200: okEnvelope(PageOf(SessionRecord)), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const ws = request.workspace.id;
      const page = await store.simulationRuns.listSessions(ws, {
        pageNumber: q.page_number,
        pageSize: q.page_size,
        ...dateRange(q),
        ...(q.target_agent_id !== undefined ? { modelId: q.target_agent_id } : {}),
      });
      const runs = await store.simulationRuns.runsOfSessions(page.items.map((s) => s.id));
      const [cases, names] = await Promise.all([
        casesById(ws, runs),
        agentNames(
          ws,
          page.items.map((s) => s.modelId),
        ),
      ]);
      const bySession = new Map<string, SimulationRun[]>();
      for (const run of runs) {
        const list = bySession.get(run.sessionId);
        if (list) list.push(run);
        else bySession.set(run.sessionId, [run]);
      }
      const items = page.items.map((s) =>
        presentSession(s, bySession.get(s.id) ?? [], cases, names.get(s.modelId) ?? null),
      );
      return ok(pageBody(items, page.total, q));
    },
  );

  app.get(
    '/simulations/sessions/:session_id',
    {
      schema: {
        tags: TAG,
        summary: 'A session: every simulation with its status, verdicts and transcript, and the counts',
        params: idParam('session_id'),
        response: { 200: okEnvelope(SessionRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { session_id: id } = request.params as { session_id: string };
      return ok(await readSession(request.workspace.id, id, ['params', 'session_id']));
    },
  );

  // The published API's path for the same read.
  app.get(
    '/simulations/session/:simulation_session_id',
    {
      schema: {
        tags: TAG,
        summary: 'A session (the same as /simulations/sessions/{session_id})',
        params: idParam('simulation_session_id'),
        response: { 200: okEnvelope(SessionRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { simulation_session_id: id } = request.params as { simulation_session_id: string };
      return ok(await readSession(request.workspace.id, id, ['params', 'simulation_session_id']));
    },
  );

  app.get(
    '/simulations/:simulation_id',
    {
      schema: {
        tags: TAG,
        summary: 'One simulation: status, per-criterion verdicts, transcript, turns',
        params: idParam('simulation_id'),
        response: { 200: okEnvelope(SimulationRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { simulation_id: id } = request.params as { simulation_id: string };
      uuidOr400(id, ['params', 'simulation_id']);
      const ws = request.workspace.id;
      const run = await store.simulationRuns.getRun(ws, id);
      if (!run) throw notFound(`simulation ${id} not found`);
      const session = await store.simulationRuns.getSession(ws, run.sessionId);
      const testCase = (await store.simulations.getCase(ws, run.caseId)) ?? undefined;
      return ok(presentRun(run, { session, testCase, agentName: await agentName(ws, session) }));
    },
  );

  app.get(
    '/simulation_suites/:suite_id/sessions',
    {
      schema: {
        tags: TAG,
        summary: "A suite's sessions, newest first (without their simulations)",
        params: idParam('suite_id'),
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
        }),
        response: {
          200: okEnvelope(Type.Object({ pagination: PaginationSchema, sessions: Type.Array(SessionRecord) })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { suite_id: suiteId } = request.params as { suite_id: string };
      uuidOr400(suiteId, ['params', 'suite_id']);
      const suite = await store.simulations.getSuite(request.workspace.id, suiteId);
      if (!suite) throw notFound(`simulation suite ${suiteId} not found`);
      const { limit, offset } = request.query;
      const page = await store.simulationRuns.sessionsOfSuite(request.workspace.id, suite.id, limit, offset);
      const name = (await store.agents.get(request.workspace.id, suite.modelId))?.name ?? null;
      return ok({
        pagination: { total_records: page.total, limit, offset },
        sessions: page.sessions.map((s) => presentSession(s, [], new Map(), name)),
      });
    },
  );

  app.post(
    '/simulation_cases/generate',
    {
      schema: {
        tags: ['Simulation cases'],
        summary:
          'Generate cases for an agent; streams NDJSON lines (progress, case, done or error) as each case is made',
        body: GenerateBody,
        response: { ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request, reply) => {
      const workspace = request.workspace;
      const body = request.body;
      const count = body.count ?? 5;
      const agent = await store.agents.get(workspace.id, body.agent_id);
      if (!agent) throw notFound(`agent ${body.agent_id} not found`);
      if (body.suite_id !== undefined) {
        const suite = await store.simulations.getSuite(workspace.id, body.suite_id);
        if (!suite)
          throw unprocessable([
            {
              loc: ['body', 'suite_id'],
              msg: `body.suite_id: suite ${body.suite_id} not found`,
              type: 'not_found',
            },
          ]);
        if (suite.modelId !== agent.id)
          throw unprocessable([
            {
              loc: ['body', 'suite_id'],
              msg: `body.suite_id: the suite belongs to agent ${suite.modelId}, not ${agent.id}`,
              type: 'value_error',
            },
          ]);
      }
      const inner = agent.spec.agent ?? {};
      if (inner.prompt === undefined || inner.prompt.trim() === '')
        throw unprocessable([
          {
            loc: ['body', 'agent_id'],
            msg: `body.agent_id: agent ${agent.id} has no prompt to generate cases from`,
            type: 'value_error',
          },
        ]);
      const attached = (await store.actions.attachedTo(workspace.id, [agent.id])).get(agent.id) ?? [];
      const actions: GenerationAction[] = attached.map((a) => {
        // The fields generation reads, by name, whichever kinds have them.
        const c = new Map<string, unknown>(Object.entries(a.config));
        const str = (key: string) => {
          const v = c.get(key);
          return typeof v === 'string' ? v : undefined;
        };
        const choices = c.get('choices');
        return {
          kind: a.kind,
          ...(str('name') ? { name: str('name') } : {}),
          ...(str('identifier') ? { identifier: str('identifier') } : {}),
          ...(str('description') ? { description: str('description') } : {}),
          ...(str('instructions') ? { instructions: str('instructions') } : {}),
          ...(str('kind') ? { answer_kind: str('kind') } : {}),
          ...(Array.isArray(choices)
            ? { choices: choices.filter((x): x is string => typeof x === 'string') }
            : {}),
        };
      });
      const baseId = await store.knowledge.baseOfAgent(workspace.id, agent.id);
      const knowledgeTopics = baseId
        ? (await store.knowledge.listSources(workspace.id, baseId)).map((s) => s.title).filter(Boolean)
        : [];
      const { llm, model } = models.route(inner.llm, workspace.plan);

      const agents = await agentBriefs(store, workspace.id, [agent.id]);

      // The 200 is a stream: one JSON object per line, flushed as each case is stored.
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'cache-control': 'no-cache',
        'x-request-id': request.id,
      });
      const line = (value: unknown) => raw.write(`${JSON.stringify(value)}\n`);
      const abort = new AbortController();
      raw.on('close', () => abort.abort());
      let created = 0;
      try {
        line({ type: 'progress', done: 0, total: count });
        for await (const generated of generateCases(
          {
            agent: {
              name: agent.name,
              type: agent.type,
              prompt: inner.prompt,
              ...(inner.greeting_message !== undefined ? { greeting_message: inner.greeting_message } : {}),
              end_call_reasons: inner.end_call_reasons_v2 ?? inner.end_call_reasons ?? null,
              ...(inner.language !== undefined ? { language: inner.language } : {}),
            },
            actions,
            knowledgeTopics,
            count,
            ...(body.scenarios ? { scenarios: body.scenarios } : {}),
            ...(body.include_tests ? { includeTests: body.include_tests } : {}),
          },
          { llm, ...(model ? { model } : {}), signal: abort.signal },
        )) {
          if (abort.signal.aborted) break;
          const stored = await store.simulations.createCase(workspace.id, {
            name: generated.name,
            prompt: generated.prompt,
            type: generated.type,
            successCriteria: generated.success_criteria,
            callSuccessType: generated.call_success_type,
            suiteId: body.suite_id ?? null,
            baseAgentId: agent.id,
          });
          created += 1;
          line({ type: 'case', simulation_case: presentCase(stored, agents) });
          line({ type: 'progress', done: created, total: count });
        }
        line({ type: 'done', created });
      } catch (err) {
        request.log.warn({ err }, 'case generation failed');
        line({
          type: 'error',
          description: `generation stopped after ${created} cases: ${err instanceof Error ? err.message : String(err)}`,
        });
      } finally {
        raw.end();
      }
    },
  );
};
