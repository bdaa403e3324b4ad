import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ParleyError, invalidInput, notFound, type FieldError } from '../../core/index.ts';
import type {
  Repositories,
  SimulationCase,
  SimulationCasePatch,
  SimulationSuite,
  Store,
} from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { agentBriefs, presentCase, presentSuite } from './present.ts';
import {
  ByAgentQuery,
  CaseIdParams,
  CasePage,
  CaseRecord,
  CreateCaseBody,
  CreateSuiteBody,
  ListCasesQuery,
  ListSuitesQuery,
  NoContent,
  SuiteIdParams,
  SuitePage,
  SuiteRecord,
  UpdateCaseBody,
  UpdateSuiteBody,
} from './schemas.ts';

// Simulation cases and suites (spec "Simulation cases" and "Simulation suites", WIRE.md section
// 7): storage and CRUD. Malformed requests are 400s; a well-formed case that cannot be kept as
// asked (empty criteria, an unknown suite or agent, a suite of another agent than the case's base
// agent) is a 422 with the validation error body. Generation and execution live elsewhere.

const CASES_TAG = ['Simulation cases'];
const SUITES_TAG = ['Simulation suites'];

const dotted = (loc: (string | number)[]) =>
  loc.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join('');

/** 422: the request is well-formed but cannot be carried out; every problem is listed. */
export function unprocessable(problems: FieldError[]): ParleyError {
  return new ParleyError(problems.map((p) => p.msg).join('; '), {
    code: 'unprocessable',
    status: 422,
    category: 'validation',
    errors: problems,
  });
}

/** Collects the field problems of one request, then throws them together. */
function problems() {
  const list: FieldError[] = [];
  return {
    add(loc: (string | number)[], msg: string, type = 'value_error') {
      list.push({ loc, msg: `${dotted(loc)} ${msg}`, type });
    },
    throwIfAny() {
      if (list.length > 0) throw unprocessable(list);
    },
  };
}

/** Text of nothing but spaces is as empty as no text (400). */
function checkName(name: string | undefined, loc: (string | number)[]) {
  if (name !== undefined && name.trim() === '')
    throw invalidInput(`${dotted(loc)} must not be blank`, loc, 'blank');
}

function checkCriteria(criteria: readonly string[] | undefined) {
  for (const [i, criterion] of (criteria ?? []).entries())
    checkName(criterion, ['body', 'success_criteria', i]);
}

const caseNotFound = (id: string) => notFound(`simulation case ${id} not found`);
const suiteNotFound = (id: string) => notFound(`simulation suite ${id} not found`);

/** The case as it would be after `patch`, checked: a 422 listing every problem otherwise. */
async function checkCase(
  repos: Repositories,
  workspaceId: string,
  merged: {
    type: SimulationCase['type'];
    successCriteria: readonly string[];
    suiteId: string | null;
    baseAgentId: string | null;
  },
  given: { successCriteria: boolean; suiteId: boolean; baseAgentId: boolean },
): Promise<{ baseAgentId: string | null }> {
  const p = problems();
  if (given.successCriteria && merged.successCriteria.length === 0)
    p.add(['body', 'success_criteria'], 'must list at least one criterion', 'too_short');
  if (given.baseAgentId && merged.baseAgentId !== null) {
    const agent = await repos.agents.get(workspaceId, merged.baseAgentId);
    if (!agent) p.add(['body', 'base_agent_id'], `is not an agent of the workspace (${merged.baseAgentId})`);
  }
  let suite: SimulationSuite | null = null;
  if (merged.suiteId !== null) {
    suite = await repos.simulations.getSuite(workspaceId, merged.suiteId);
    if (!suite && given.suiteId)
      p.add(['body', 'suite_id'], `is not a suite of the workspace (${merged.suiteId})`);
  }
  if (suite && merged.baseAgentId !== null && suite.modelId !== merged.baseAgentId) {
    const loc = given.suiteId ? ['body', 'suite_id'] : ['body', 'base_agent_id'];
    p.add(
      loc,
      `names suite ${suite.id}, which tests agent ${suite.modelId}, not the case's base agent ${merged.baseAgentId}`,
      'agent_mismatch',
    );
  }
  // An agent_based case always names its agent: given, or the agent of its suite.
  const baseAgentId = merged.baseAgentId ?? (merged.type === 'agent_based' ? (suite?.modelId ?? null) : null);
  if (merged.type === 'agent_based' && baseAgentId === null && !(merged.suiteId !== null && !suite))
    p.add(['body', 'base_agent_id'], 'is required for an agent_based case outside a suite', 'missing');
  p.throwIfAny();
  return { baseAgentId };
}

function parseDate(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}

export const simulationRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  // ---- cases ----

  app.post(
    '/simulation_cases',
    {
      schema: {
        tags: CASES_TAG,
        summary: 'Create a simulation case',
        body: CreateCaseBody,
        response: {
          200: okEnvelope(Type.Object({ simulation_case: CaseRecord })),
          ...errorResponses(400, 401, 422),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const ws = request.workspace.id;
      checkName(body.name, ['body', 'name']);
      checkName(body.prompt, ['body', 'prompt']);
      checkCriteria(body.success_criteria);
      const created = await store.transaction(async (repos) => {
        const type = body.type ?? 'custom';
        const { baseAgentId } = await checkCase(
          repos,
          ws,
          {
            type,
            successCriteria: body.success_criteria,
            suiteId: body.suite_id ?? null,
            baseAgentId: body.base_agent_id ?? null,
          },
          { successCriteria: true, suiteId: true, baseAgentId: true },
        );
        return repos.simulations.createCase(ws, {
          name: body.name,
          prompt: body.prompt,
          type,
          successCriteria: body.success_criteria,
          callSuccessType: body.call_success_type ?? 'all',
          suiteId: body.suite_id ?? null,
          baseAgentId,
        });
      });
      const agents = await agentBriefs(store, ws, [created.baseAgentId]);
      return ok({ simulation_case: presentCase(created, agents) });
    },
  );

  app.get(
    '/simulation_cases',
    {
      schema: {
        tags: CASES_TAG,
        summary: 'List simulation cases, newest first',
        querystring: ListCasesQuery,
        response: { 200: okEnvelope(CasePage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const ws = request.workspace.id;
      const page = await store.simulations.listCases(ws, {
        pageNumber: q.page_number,
        pageSize: q.page_size,
        ...(q.search ? { search: q.search } : {}),
        ...(q.simulation_case_type ? { type: q.simulation_case_type } : {}),
        ...(q.suite_id ? { suiteId: q.suite_id } : {}),
      });
      const agents = await agentBriefs(
        store,
        ws,
        page.items.map((c) => c.baseAgentId),
      );
      return ok({
        pagination: {
          total_records: page.total,
          limit: q.page_size,
          offset: Math.min((q.page_number - 1) * q.page_size, 2_147_483_647),
        },
        items: page.items.map((c) => presentCase(c, agents)),
        total: page.total,
        page_number: q.page_number,
        page_size: q.page_size,
      });
    },
  );

  app.get(
    '/simulation_cases/by_agent',
    {
      schema: {
        tags: CASES_TAG,
        summary: "An agent's cases: based on it or in one of its suites, newest first",
        querystring: ByAgentQuery,
        response: { 200: okEnvelope(Type.Array(CaseRecord)), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const agentId = request.query.agent_id;
      if (!(await store.agents.get(ws, agentId)))
        throw notFound(`query.agent_id: agent ${agentId} not found`, 400);
      const cases = await store.simulations.casesOfAgent(ws, agentId);
      const agents = await agentBriefs(
        store,
        ws,
        cases.map((c) => c.baseAgentId),
      );
      return ok(cases.map((c) => presentCase(c, agents)));
    },
  );

  app.get(
    '/simulation_cases/:simulation_case_id',
    {
      schema: {
        tags: CASES_TAG,
        summary: 'A simulation case',
        params: CaseIdParams,
        response: { 200: okEnvelope(CaseRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.simulation_case_id;
      const ws = request.workspace.id;
      const found = await store.simulations.getCase(ws, id);
      if (!found) throw caseNotFound(id);
      return ok(presentCase(found, await agentBriefs(store, ws, [found.baseAgentId])));
    },
  );

  app.put(
    '/simulation_cases/:simulation_case_id',
    {
      schema: {
        tags: CASES_TAG,
        summary: 'Update a simulation case: the given fields replace the stored ones',
        params: CaseIdParams,
        body: UpdateCaseBody,
        response: { 200: okEnvelope(CaseRecord), ...errorResponses(400, 401, 404, 422) },
      },
    },
    async (request) => {
      const id = request.params.simulation_case_id;
      const ws = request.workspace.id;
      // null stands for "not given" (suite_id and base_agent_id excepted: null clears them).
      const raw = request.body;
      const body = {
        name: raw.name ?? undefined,
        prompt: raw.prompt ?? undefined,
        type: raw.type ?? undefined,
        success_criteria: raw.success_criteria ?? undefined,
        call_success_type: raw.call_success_type ?? undefined,
        suite_id: raw.suite_id,
        base_agent_id: raw.base_agent_id,
      };
      checkName(body.name, ['body', 'name']);
      checkName(body.prompt, ['body', 'prompt']);
      checkCriteria(body.success_criteria);
      const updated = await store.transaction(async (repos) => {
        const current = await repos.simulations.getCase(ws, id);
        if (!current) throw caseNotFound(id);
        const merged = {
          type: body.type ?? current.type,
          successCriteria: body.success_criteria ?? current.successCriteria,
          suiteId: body.suite_id === undefined ? current.suiteId : body.suite_id,
          baseAgentId: body.base_agent_id === undefined ? current.baseAgentId : body.base_agent_id,
        };
        const { baseAgentId } = await checkCase(repos, ws, merged, {
          successCriteria: body.success_criteria !== undefined,
          suiteId: body.suite_id !== undefined,
          baseAgentId: body.base_agent_id !== undefined,
        });
        const patch: SimulationCasePatch = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.prompt !== undefined ? { prompt: body.prompt } : {}),
          ...(body.type !== undefined ? { type: body.type } : {}),
          ...(body.success_criteria !== undefined ? { successCriteria: body.success_criteria } : {}),
          ...(body.call_success_type !== undefined ? { callSuccessType: body.call_success_type } : {}),
          ...(body.suite_id !== undefined ? { suiteId: body.suite_id } : {}),
          ...(baseAgentId !== current.baseAgentId ? { baseAgentId } : {}),
        };
        const next = await repos.simulations.updateCase(ws, id, patch);
        if (!next) throw caseNotFound(id);
        return next;
      });
      return ok(presentCase(updated, await agentBriefs(store, ws, [updated.baseAgentId])));
    },
  );

  app.delete(
    '/simulation_cases/:simulation_case_id',
    {
      schema: {
        tags: CASES_TAG,
        summary: 'Delete a simulation case',
        params: CaseIdParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = request.params.simulation_case_id;
      if (!(await store.simulations.deleteCase(request.workspace.id, id))) throw caseNotFound(id);
      return reply.code(204).send(null);
    },
  );

  // ---- suites ----

  async function suiteWithCases(repos: Repositories, workspaceId: string, id: string) {
    const suite = await repos.simulations.getSuite(workspaceId, id);
    if (!suite) throw suiteNotFound(id);
    const cases = await repos.simulations.casesOfSuite(workspaceId, id);
    const agents = await agentBriefs(repos, workspaceId, [suite.modelId, ...cases.map((c) => c.baseAgentId)]);
    return presentSuite(suite, cases, agents);
  }

  app.post(
    '/simulation_suites',
    {
      schema: {
        tags: SUITES_TAG,
        summary: 'Create a suite attached to the agent given by model_id',
        body: CreateSuiteBody,
        response: { 200: okEnvelope(SuiteRecord), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const body = request.body;
      const ws = request.workspace.id;
      checkName(body.name, ['body', 'name']);
      const suite = await store.transaction(async (repos) => {
        if (!(await repos.agents.get(ws, body.model_id)))
          throw notFound(`body.model_id: agent ${body.model_id} not found`, 400);
        const ids = [...new Set(body.case_ids ?? [])];
        const cases = new Map((await repos.simulations.getCases(ws, ids)).map((c) => [c.id, c]));
        const given = body.case_ids ?? [];
        const missing = given.findIndex((id) => !cases.has(id));
        if (missing >= 0)
          throw notFound(`body.case_ids[${missing}]: simulation case ${given[missing]} not found`, 400);
        const errors: FieldError[] = [];
        for (const [i, id] of given.entries()) {
          const c = cases.get(id);
          if (c?.baseAgentId && c.baseAgentId !== body.model_id) {
            const loc = ['body', 'case_ids', i];
            errors.push({
              loc,
              msg: `${dotted(loc)}: case ${id} was written for agent ${c.baseAgentId}, not ${body.model_id}`,
              type: 'agent_mismatch',
            });
          }
        }
        if (errors.length > 0)
          throw new ParleyError(errors.map((e) => e.msg).join('; '), {
            code: 'invalid_input',
            status: 400,
            category: 'validation',
            errors,
          });
        const created = await repos.simulations.createSuite(ws, {
          name: body.name,
          modelId: body.model_id,
          ...(body.language !== undefined ? { language: body.language } : {}),
        });
        await repos.simulations.moveCases(ws, ids, created.id);
        return suiteWithCases(repos, ws, created.id);
      });
      return ok(suite);
    },
  );

  app.get(
    '/simulation_suites',
    {
      schema: {
        tags: SUITES_TAG,
        summary: 'List simulation suites, newest first',
        querystring: ListSuitesQuery,
        response: { 200: okEnvelope(SuitePage), ...errorResponses(400, 401) },
      },
      // model_ids may come repeated (an array) or comma-separated (one string), or both.
      preValidation: async (request) => {
        const q = request.query as Record<string, unknown>;
        const raw = [q.model_ids, q['model_ids[]']].flat().filter((v) => v !== undefined);
        delete q['model_ids[]'];
        if (raw.length === 0) return;
        const ids = raw.flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [v]));
        const kept = ids.filter((v) => v !== '');
        if (kept.length === 0) delete q.model_ids;
        else q.model_ids = kept;
      },
    },
    async (request) => {
      const q = request.query;
      const startDate = parseDate(q.start_date);
      const endDate = parseDate(q.end_date);
      if (startDate !== undefined && endDate !== undefined && startDate > endDate)
        throw invalidInput('query.end_date must not be before query.start_date', ['query', 'end_date']);
      const ws = request.workspace.id;
      const page = await store.simulations.listSuites(ws, {
        pageNumber: q.page_number,
        pageSize: q.page_size,
        ...(q.search ? { search: q.search } : {}),
        ...(q.model_ids ? { modelIds: q.model_ids } : {}),
        ...(startDate !== undefined ? { startDate } : {}),
        ...(endDate !== undefined ? { endDate } : {}),
      });
      const cases = await store.simulations.casesOfSuites(
        ws,
        page.items.map((s) => s.id),
      );
      const agents = await agentBriefs(store, ws, [
        ...page.items.map((s) => s.modelId),
        ...[...cases.values()].flat().map((c) => c.baseAgentId),
      ]);
      return ok({
        items: page.items.map((s) => presentSuite(s, cases.get(s.id) ?? [], agents)),
        total: page.total,
        page_number: q.page_number,
        page_size: q.page_size,
      });
    },
  );

  app.get(
    '/simulation_suites/:suite_id',
    {
      schema: {
        tags: SUITES_TAG,
        summary: 'A simulation suite with its cases',
        params: SuiteIdParams,
        response: { 200: okEnvelope(SuiteRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => ok(await suiteWithCases(store, request.workspace.id, request.params.suite_id)),
  );

  app.put(
    '/simulation_suites/:suite_id',
    {
      schema: {
        tags: SUITES_TAG,
        summary: "Update a suite's name or language (it stays attached to its agent)",
        params: SuiteIdParams,
        body: UpdateSuiteBody,
        response: { 200: okEnvelope(SuiteRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.suite_id;
      const ws = request.workspace.id;
      // null stands for "not given".
      const body = {
        name: request.body.name ?? undefined,
        language: request.body.language ?? undefined,
        model_id: request.body.model_id ?? undefined,
      };
      checkName(body.name, ['body', 'name']);
      const suite = await store.transaction(async (repos) => {
        const current = await repos.simulations.getSuite(ws, id);
        if (!current) throw suiteNotFound(id);
        if (body.model_id !== undefined && body.model_id !== current.modelId)
          throw invalidInput(
            `body.model_id: suite ${id} is attached to agent ${current.modelId}; a suite cannot move to another agent`,
            ['body', 'model_id'],
          );
        await repos.simulations.updateSuite(ws, id, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.language !== undefined ? { language: body.language } : {}),
        });
        return suiteWithCases(repos, ws, id);
      });
      return ok(suite);
    },
  );

  app.delete(
    '/simulation_suites/:suite_id',
    {
      schema: {
        tags: SUITES_TAG,
        summary: 'Delete a suite and its cases',
        params: SuiteIdParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = request.params.suite_id;
      if (!(await store.simulations.deleteSuite(request.workspace.id, id))) throw suiteNotFound(id);
      return reply.code(204).send(null);
    },
  );
};
