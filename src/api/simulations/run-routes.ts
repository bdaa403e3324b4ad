import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, isUuid, notFound, toIso } from '../../core/index.ts';
import type { ModelRouter } from '../../providers/index.ts';
import {
  SIMULATION_TEST_KINDS,
  generateCases,
  type GenerationAction,
  type SimulationService,
} from '../../simulation/index.ts';
import type { SimulationRun, SimulationSession, Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import {
  NonEmptyString,
  PaginationSchema,
  StringEnum,
  errorResponses,
  okEnvelope,
} from '../schemas/common.ts';
import { presentCase, unprocessable } from './routes.ts';

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
  passed: Type.Union([Type.Boolean(), Type.Null()]),
  criteria_results: Type.Array(Verdict),
  transcript: Type.String(),
  turns: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
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

/** A simulation as read: one that has not started yet shows as in progress (it is queued). */
function presentRun(run: SimulationRun) {
  return {
    simulation_id: run.id,
    simulation_session_id: run.sessionId,
    simulation_case_id: run.caseId,
    status: run.status === 'pending' ? ('in-progress' as const) : run.status,
    passed: run.passed,
    criteria_results: run.criteriaResults,
    transcript: run.transcript,
    turns: run.turns,
    error: run.error,
  };
}

function presentSession(session: SimulationSession, runs: readonly SimulationRun[]) {
  return {
    simulation_session_id: session.id,
    suite_id: session.suiteId,
    model_id: session.modelId,
    status: session.status === 'completed' ? ('completed' as const) : ('in-progress' as const),
    max_turns: session.maxTurns,
    simulations: runs.map(presentRun),
    total_simulations: session.total,
    completed_simulations: session.completed,
    failed_simulations: session.failed,
    pending_simulations: session.total - session.completed - session.failed,
    created_at: toIso(session.createdAt),
  };
}

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
      uuidOr400(id, ['params', 'session_id']);
      const session = await store.simulationRuns.getSession(request.workspace.id, id);
      if (!session) throw notFound(`simulation session ${id} not found`);
      return ok(presentSession(session, await store.simulationRuns.runsOfSession(session.id)));
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
      const run = await store.simulationRuns.getRun(request.workspace.id, id);
      if (!run) throw notFound(`simulation ${id} not found`);
      return ok(presentRun(run));
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
      return ok({
        pagination: { total_records: page.total, limit, offset },
        sessions: page.sessions.map((s) => presentSession(s, [])),
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
          line({ type: 'case', simulation_case: presentCase(stored) });
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
