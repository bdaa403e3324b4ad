import { ParleyError, invalidInput, notFound, type FieldError } from '../core/index.ts';
import type {
  Repositories,
  SimulationCase,
  SimulationCasePatch,
  SimulationSuite,
  Store,
} from '../store/index.ts';

// The workspace's simulation cases and suites as stored (spec "Simulation cases" and "Simulation
// suites", WIRE.md section 7): what may be kept. Blank text is a 400; a well-formed case that
// cannot be kept as asked (empty criteria, an unknown suite or agent, a suite of another agent
// than the case's base agent) is a 422 listing every problem. Each change is one transaction.

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

/** The case as it would be after the change, checked: a 422 listing every problem otherwise. */
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

/** A case's fields as a request gives them; absent (undefined) is not given. */
export interface CaseFields {
  name?: string | undefined;
  prompt?: string | undefined;
  type?: SimulationCase['type'] | undefined;
  successCriteria?: readonly string[] | undefined;
  callSuccessType?: SimulationCase['callSuccessType'] | undefined;
  /** null: no suite. */
  suiteId?: string | null | undefined;
  /** null: no base agent. */
  baseAgentId?: string | null | undefined;
}

export type NewCase = CaseFields & { name: string; prompt: string; successCriteria: readonly string[] };

export interface NewSuite {
  name: string;
  /** The agent the suite tests. */
  modelId: string;
  language?: string | undefined;
  /** Cases moved into the new suite. */
  caseIds?: string[] | undefined;
}

/** A suite with its cases. */
export interface SuiteWithCases {
  suite: SimulationSuite;
  cases: SimulationCase[];
}

async function withCases(repos: Repositories, workspaceId: string, id: string): Promise<SuiteWithCases> {
  const suite = await repos.simulations.getSuite(workspaceId, id);
  if (!suite) throw suiteNotFound(id);
  return { suite, cases: await repos.simulations.casesOfSuite(workspaceId, id) };
}

/** The cases of a new suite, in order: 400 naming one that is unknown or written for another agent. */
async function casesForSuite(repos: Repositories, workspaceId: string, input: NewSuite): Promise<string[]> {
  const given = input.caseIds ?? [];
  const ids = [...new Set(given)];
  const cases = new Map((await repos.simulations.getCases(workspaceId, ids)).map((c) => [c.id, c]));
  const missing = given.findIndex((id) => !cases.has(id));
  if (missing >= 0)
    throw notFound(`body.case_ids[${missing}]: simulation case ${given[missing]} not found`, 400);
  const errors: FieldError[] = [];
  for (const [i, id] of given.entries()) {
    const c = cases.get(id);
    if (c?.baseAgentId && c.baseAgentId !== input.modelId) {
      const loc = ['body', 'case_ids', i];
      errors.push({
        loc,
        msg: `${dotted(loc)}: case ${id} was written for agent ${c.baseAgentId}, not ${input.modelId}`,
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
  return ids;
}

export function createSimulationLibrary(store: Pick<Store, 'transaction'>) {
  return {
    async createCase(workspaceId: string, input: NewCase): Promise<SimulationCase> {
      checkName(input.name, ['body', 'name']);
      checkName(input.prompt, ['body', 'prompt']);
      checkCriteria(input.successCriteria);
      return store.transaction(async (repos) => {
        const type = input.type ?? 'custom';
        const { baseAgentId } = await checkCase(
          repos,
          workspaceId,
          {
            type,
            successCriteria: input.successCriteria,
            suiteId: input.suiteId ?? null,
            baseAgentId: input.baseAgentId ?? null,
          },
          { successCriteria: true, suiteId: true, baseAgentId: true },
        );
        return repos.simulations.createCase(workspaceId, {
          name: input.name,
          prompt: input.prompt,
          type,
          successCriteria: input.successCriteria,
          callSuccessType: input.callSuccessType ?? 'all',
          suiteId: input.suiteId ?? null,
          baseAgentId,
        });
      });
    },

    /** The given fields replace the stored ones; the result is checked as a whole. */
    async updateCase(workspaceId: string, id: string, change: CaseFields): Promise<SimulationCase> {
      checkName(change.name, ['body', 'name']);
      checkName(change.prompt, ['body', 'prompt']);
      checkCriteria(change.successCriteria);
      return store.transaction(async (repos) => {
        const current = await repos.simulations.getCase(workspaceId, id);
        if (!current) throw caseNotFound(id);
        const merged = {
          type: change.type ?? current.type,
          successCriteria: change.successCriteria ?? current.successCriteria,
          suiteId: change.suiteId === undefined ? current.suiteId : change.suiteId,
          baseAgentId: change.baseAgentId === undefined ? current.baseAgentId : change.baseAgentId,
        };
        const { baseAgentId } = await checkCase(repos, workspaceId, merged, {
          successCriteria: change.successCriteria !== undefined,
          suiteId: change.suiteId !== undefined,
          baseAgentId: change.baseAgentId !== undefined,
        });
        const patch: SimulationCasePatch = {
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(change.prompt !== undefined ? { prompt: change.prompt } : {}),
          ...(change.type !== undefined ? { type: change.type } : {}),
          ...(change.successCriteria !== undefined ? { successCriteria: change.successCriteria } : {}),
          ...(change.callSuccessType !== undefined ? { callSuccessType: change.callSuccessType } : {}),
          ...(change.suiteId !== undefined ? { suiteId: change.suiteId } : {}),
          ...(baseAgentId !== current.baseAgentId ? { baseAgentId } : {}),
        };
        const next = await repos.simulations.updateCase(workspaceId, id, patch);
        if (!next) throw caseNotFound(id);
        return next;
      });
    },

    /** Creates a suite for an agent of the workspace, moving the given cases into it. */
    async createSuite(workspaceId: string, input: NewSuite): Promise<SuiteWithCases> {
      checkName(input.name, ['body', 'name']);
      return store.transaction(async (repos) => {
        if (!(await repos.agents.get(workspaceId, input.modelId)))
          throw notFound(`body.model_id: agent ${input.modelId} not found`, 400);
        const ids = await casesForSuite(repos, workspaceId, input);
        const created = await repos.simulations.createSuite(workspaceId, {
          name: input.name,
          modelId: input.modelId,
          ...(input.language !== undefined ? { language: input.language } : {}),
        });
        await repos.simulations.moveCases(workspaceId, ids, created.id);
        return withCases(repos, workspaceId, created.id);
      });
    },

    /** Changes a suite's name or language; it stays attached to its agent (a 400 otherwise). */
    async updateSuite(
      workspaceId: string,
      id: string,
      change: { name?: string | undefined; language?: string | undefined; modelId?: string | undefined },
    ): Promise<SuiteWithCases> {
      checkName(change.name, ['body', 'name']);
      return store.transaction(async (repos) => {
        const current = await repos.simulations.getSuite(workspaceId, id);
        if (!current) throw suiteNotFound(id);
        if (change.modelId !== undefined && change.modelId !== current.modelId)
          throw invalidInput(
            `body.model_id: suite ${id} is attached to agent ${current.modelId}; a suite cannot move to another agent`,
            ['body', 'model_id'],
          );
        await repos.simulations.updateSuite(workspaceId, id, {
          ...(change.name !== undefined ? { name: change.name } : {}),
          ...(change.language !== undefined ? { language: change.language } : {}),
        });
        return withCases(repos, workspaceId, id);
      });
    },
  };
}

export type SimulationLibrary = ReturnType<typeof createSimulationLibrary>;
