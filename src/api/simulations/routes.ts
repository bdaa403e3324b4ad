import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, notFound } from '../../core/index.ts';
import type { SimulationLibrary, SuiteWithCases } from '../../simulation/index.ts';
import type { Store } from '../../store/index.ts';
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
// 7): storage and CRUD. What may be stored (blank text and unknown cases are 400s, a case that
// cannot be kept as asked a 422) is the simulation library's (src/simulation/library.ts).
// Generation and execution live elsewhere.

const CASES_TAG = ['Simulation cases'];
const SUITES_TAG = ['Simulation suites'];

const caseNotFound = (id: string) => notFound(`simulation case ${id} not found`);
const suiteNotFound = (id: string) => notFound(`simulation suite ${id} not found`);

function parseDate(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Date.parse(value);
}

export const simulationRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Changes to cases and suites (src/simulation). */
  library: SimulationLibrary;
}> = async (app, { store, library }) => {
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
      const created = await library.createCase(ws, {
        name: body.name,
        prompt: body.prompt,
        type: body.type,
        successCriteria: body.success_criteria,
        callSuccessType: body.call_success_type,
        suiteId: body.suite_id,
        baseAgentId: body.base_agent_id,
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
      const updated = await library.updateCase(ws, id, {
        name: raw.name ?? undefined,
        prompt: raw.prompt ?? undefined,
        type: raw.type ?? undefined,
        successCriteria: raw.success_criteria ?? undefined,
        callSuccessType: raw.call_success_type ?? undefined,
        suiteId: raw.suite_id,
        baseAgentId: raw.base_agent_id,
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

  /** A suite with its cases, and the agents it and they name. */
  async function presentWithAgents(workspaceId: string, { suite, cases }: SuiteWithCases) {
    const agents = await agentBriefs(store, workspaceId, [suite.modelId, ...cases.map((c) => c.baseAgentId)]);
    return presentSuite(suite, cases, agents);
  }

  async function suiteWithCases(workspaceId: string, id: string) {
    const suite = await store.simulations.getSuite(workspaceId, id);
    if (!suite) throw suiteNotFound(id);
    return presentWithAgents(workspaceId, {
      suite,
      cases: await store.simulations.casesOfSuite(workspaceId, id),
    });
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
      const created = await library.createSuite(ws, {
        name: body.name,
        modelId: body.model_id,
        language: body.language,
        caseIds: body.case_ids,
      });
      return ok(await presentWithAgents(ws, created));
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
    async (request) => ok(await suiteWithCases(request.workspace.id, request.params.suite_id)),
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
      const updated = await library.updateSuite(ws, id, {
        name: request.body.name ?? undefined,
        language: request.body.language ?? undefined,
        modelId: request.body.model_id ?? undefined,
      });
      return ok(await presentWithAgents(ws, updated));
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
