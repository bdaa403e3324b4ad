import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, isUuid, notFound } from '../../core/index.ts';
import type { ModelRouter } from '../../providers/index.ts';
import {
  SIMULATION_TEST_KINDS,
  generateCases,
  type GenerationAction,
  type SimulationService,
} from '../../simulation/index.ts';
import { CALL_SUCCESS_TYPES, type SimulationSession, type Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import {
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  errorResponses,
  okEnvelope,
} from '../schemas/common.ts';
import { agentBriefs, presentCase, presentRun, presentSession } from './present.ts';
import { unprocessable } from './routes.ts';

// Running simulations (spec "Simulation suites" execute, WIRE.md section 7): executing a suite,
// reading sessions and simulations, and generating cases as an NDJSON stream.

const TAG = ['Simulations'];

const ExecuteQuery = Type.Object({
  target_agent_id: NonEmptyString(100, "Must be the suite's model_id."),
  max_turns: Type.Integer({
    minimum: 10,
    maximum: 50,
    default: 20,
    description: 'Caller turns per simulation.',
  }),
  actions: StringEnum(['recorded', 'live'] as const, {
    default: 'recorded',
    description:
      "Parley's addition: `recorded` runs the agent's actions against stand-ins (nothing leaves Parley), `live` against their real systems.",
  }),
});

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
  custom_variables: Type.Null(),
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
      const spec = agent.spec as { name?: string; type?: string; agent?: Record<string, unknown> };
      const inner = spec.agent ?? {};
      if (typeof inner.prompt !== 'string' || inner.prompt.trim() === '')
        throw unprocessable([
          {
            loc: ['body', 'agent_id'],
            msg: `body.agent_id: agent ${agent.id} has no prompt to generate cases from`,
            type: 'value_error',
          },
        ]);
      const attached = (await store.actions.attachedTo(workspace.id, [agent.id])).get(agent.id) ?? [];
      const actions: GenerationAction[] = attached.map((a) => {
        const c = a.config as Record<string, unknown>;
        const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
        return {
          kind: a.kind,
          ...(str(c.name) ? { name: str(c.name) } : {}),
          ...(str(c.identifier) ? { identifier: str(c.identifier) } : {}),
          ...(str(c.description) ? { description: str(c.description) } : {}),
          ...(str(c.instructions) ? { instructions: str(c.instructions) } : {}),
          ...(str(c.kind) ? { answer_kind: str(c.kind) } : {}),
          ...(Array.isArray(c.choices)
            ? { choices: c.choices.filter((x): x is string => typeof x === 'string') }
            : {}),
        };
      });
      const baseId = await store.knowledge.baseOfAgent(workspace.id, agent.id);
      const knowledgeTopics = baseId
        ? (await store.knowledge.listSources(workspace.id, baseId)).map((s) => s.title).filter(Boolean)
        : [];
      const { llm, model } = models.route(
        typeof inner.llm === 'string' ? inner.llm : undefined,
        workspace.plan,
      );

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
              name: spec.name ?? '',
              ...(spec.type ? { type: spec.type } : {}),
              prompt: inner.prompt,
              ...(typeof inner.greeting_message === 'string'
                ? { greeting_message: inner.greeting_message }
                : {}),
              end_call_reasons: (inner.end_call_reasons_v2 ?? inner.end_call_reasons ?? null) as never,
              ...(typeof inner.language === 'string' ? { language: inner.language } : {}),
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
