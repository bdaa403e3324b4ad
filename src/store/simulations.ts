import { sql, type Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { Page } from './records.ts';
import type { SimulationCaseTable, SimulationSuiteTable } from './schema.ts';
import { newestFirstPage } from './paging.ts';

// Simulation suites and cases (WIRE.md section 7). A suite is attached to one agent (`modelId`);
// a case may belong to a suite. Deleting a suite deletes its cases with it (they were its
// content; a case meant to outlive its suite is moved out of it first). Sessions and simulations
// (execution results) have tables but no repository yet.
//
// Name search is a case-insensitive substring match: names are stored lowercased beside
// themselves (`name_folded`) and matched with LIKE on the lowercased term, its `%`, `_` and `\`
// escaped, which behaves the same on SQLite and PostgreSQL.

export const SIMULATION_CASE_TYPES = ['custom', 'agent_based'] as const;
export type SimulationCaseType = (typeof SIMULATION_CASE_TYPES)[number];
export const CALL_SUCCESS_TYPES = ['all', 'any'] as const;
export type CallSuccessType = (typeof CALL_SUCCESS_TYPES)[number];

export interface SimulationSuite {
  id: string;
  workspaceId: string;
  name: string;
  /** The agent the suite tests. */
  modelId: string;
  language: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewSimulationSuite {
  name: string;
  modelId: string;
  /** Default en-US. */
  language?: string;
}

export interface SimulationSuitePatch {
  name?: string;
  modelId?: string;
  language?: string;
}

export interface SimulationSuiteListOptions {
  /** From 1. */
  pageNumber: number;
  pageSize: number;
  /** Case-insensitive substring of the name. */
  search?: string;
  /** Suites of any of these agents. */
  modelIds?: readonly string[];
  /** created_at >= (ms). */
  startDate?: number;
  /** created_at <= (ms). */
  endDate?: number;
}

export interface SimulationCase {
  id: string;
  workspaceId: string;
  suiteId: string | null;
  name: string;
  /** The simulated caller's persona and goal. */
  prompt: string;
  type: SimulationCaseType;
  successCriteria: string[];
  callSuccessType: CallSuccessType;
  baseAgentId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewSimulationCase {
  suiteId?: string | null;
  name: string;
  prompt: string;
  type: SimulationCaseType;
  successCriteria: readonly string[];
  callSuccessType: CallSuccessType;
  baseAgentId?: string | null;
}

export type SimulationCasePatch = Partial<NewSimulationCase>;

export interface SimulationCaseListOptions {
  /** From 1. */
  pageNumber: number;
  pageSize: number;
  /** Case-insensitive substring of the name. */
  search?: string;
  type?: SimulationCaseType;
  suiteId?: string;
}

function toSuite(row: Selectable<SimulationSuiteTable>): SimulationSuite {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    modelId: row.model_id,
    language: row.language,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toCase(row: Selectable<SimulationCaseTable>): SimulationCase {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    suiteId: row.suite_id,
    name: row.name,
    prompt: row.prompt,
    type: row.type as SimulationCaseType,
    successCriteria: fromJson<string[]>(row.success_criteria) ?? [],
    callSuccessType: row.call_success_type as CallSuccessType,
    baseAgentId: row.base_agent_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * The LIKE pattern matching text that contains `term`, whatever the case (escape character `\`):
 * `term` is folded by `fold` (default: lowercased, as `name_folded` is), so the column searched
 * must hold text folded the same way. Also used by the webhook-log search (ASCII folding).
 */
export function containsPattern(
  term: string,
  fold: (text: string) => string = (text) => text.toLowerCase(),
): string {
  return `%${fold(term).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const fold = (name: string) => name.toLowerCase();

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

export function simulationsRepo(
  db: Db,
  clock: Clock,
  _dialect: DialectName,
  transact: Transact = (fn) => fn(db),
) {
  const nameContains = (term: string) =>
    sql<boolean>`${sql.ref('name_folded')} like ${containsPattern(term)} escape '\\'`;

  async function getSuite(trx: Db, workspaceId: string, id: string): Promise<SimulationSuite | null> {
    const row = await trx
      .selectFrom('simulation_suites')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSuite(row) : null;
  }

  return {
    // ---- suites ----

    async createSuite(workspaceId: string, input: NewSimulationSuite): Promise<SimulationSuite> {
      const now = clock.now();
      const row = await db
        .insertInto('simulation_suites')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          name: input.name,
          name_folded: fold(input.name),
          model_id: input.modelId,
          language: input.language ?? 'en-US',
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSuite(row);
    },

    getSuite: (workspaceId: string, id: string) => getSuite(db, workspaceId, id),

    /** Newest first. */
    async listSuites(
      workspaceId: string,
      options: SimulationSuiteListOptions,
    ): Promise<Page<SimulationSuite>> {
      let base = db.selectFrom('simulation_suites').where('workspace_id', '=', workspaceId);
      if (options.search) base = base.where(nameContains(options.search));
      if (options.modelIds) {
        if (options.modelIds.length === 0) return { items: [], total: 0 };
        base = base.where('model_id', 'in', [...options.modelIds]);
      }
      if (options.startDate !== undefined) base = base.where('created_at', '>=', options.startDate);
      if (options.endDate !== undefined) base = base.where('created_at', '<=', options.endDate);
      return newestFirstPage(base, options, toSuite);
    },

    /** Changes the given fields; null when the suite is absent. */
    async updateSuite(
      workspaceId: string,
      id: string,
      patch: SimulationSuitePatch,
    ): Promise<SimulationSuite | null> {
      const row = await db
        .updateTable('simulation_suites')
        .set({
          ...(patch.name !== undefined ? { name: patch.name, name_folded: fold(patch.name) } : {}),
          ...(patch.modelId !== undefined ? { model_id: patch.modelId } : {}),
          ...(patch.language !== undefined ? { language: patch.language } : {}),
          updated_at: clock.now(),
        })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toSuite(row) : null;
    },

    /** Deletes the suite and its cases; false when the suite is absent. */
    async deleteSuite(workspaceId: string, id: string): Promise<boolean> {
      return transact(async (trx) => {
        await trx
          .deleteFrom('simulation_cases')
          .where('workspace_id', '=', workspaceId)
          .where('suite_id', '=', id)
          .execute();
        const result = await trx
          .deleteFrom('simulation_suites')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0;
      });
    },

    // ---- cases ----

    async createCase(workspaceId: string, input: NewSimulationCase): Promise<SimulationCase> {
      const now = clock.now();
      const row = await db
        .insertInto('simulation_cases')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          suite_id: input.suiteId ?? null,
          name: input.name,
          name_folded: fold(input.name),
          prompt: input.prompt,
          type: input.type,
          success_criteria: toJson([...input.successCriteria]),
          call_success_type: input.callSuccessType,
          base_agent_id: input.baseAgentId ?? null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCase(row);
    },

    async getCase(workspaceId: string, id: string): Promise<SimulationCase | null> {
      const row = await db
        .selectFrom('simulation_cases')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toCase(row) : null;
    },

    /** The workspace's cases among `ids` (unknown and other workspaces' ids are left out). */
    async getCases(workspaceId: string, ids: readonly string[]): Promise<SimulationCase[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('simulation_cases')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...ids])
        .orderBy('seq')
        .execute();
      return rows.map(toCase);
    },

    /** Newest first. */
    async listCases(workspaceId: string, options: SimulationCaseListOptions): Promise<Page<SimulationCase>> {
      let base = db.selectFrom('simulation_cases').where('workspace_id', '=', workspaceId);
      if (options.search) base = base.where(nameContains(options.search));
      if (options.type) base = base.where('type', '=', options.type);
      if (options.suiteId) base = base.where('suite_id', '=', options.suiteId);
      return newestFirstPage(base, options, toCase);
    },

    /** Changes the given fields (null clears suite and base agent); null when the case is absent. */
    async updateCase(
      workspaceId: string,
      id: string,
      patch: SimulationCasePatch,
    ): Promise<SimulationCase | null> {
      const row = await db
        .updateTable('simulation_cases')
        .set({
          ...(patch.name !== undefined ? { name: patch.name, name_folded: fold(patch.name) } : {}),
          ...(patch.prompt !== undefined ? { prompt: patch.prompt } : {}),
          ...(patch.type !== undefined ? { type: patch.type } : {}),
          ...(patch.successCriteria !== undefined
            ? { success_criteria: toJson([...patch.successCriteria]) }
            : {}),
          ...(patch.callSuccessType !== undefined ? { call_success_type: patch.callSuccessType } : {}),
          ...(patch.suiteId !== undefined ? { suite_id: patch.suiteId } : {}),
          ...(patch.baseAgentId !== undefined ? { base_agent_id: patch.baseAgentId } : {}),
          updated_at: clock.now(),
        })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toCase(row) : null;
    },

    async deleteCase(workspaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom('simulation_cases')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Moves the workspace's cases `ids` into `suiteId` (out of any other suite); returns how many. */
    async moveCases(workspaceId: string, ids: readonly string[], suiteId: string): Promise<number> {
      if (ids.length === 0) return 0;
      const result = await db
        .updateTable('simulation_cases')
        .set({ suite_id: suiteId, updated_at: clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...ids])
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** The suite's cases in the order created. */
    async casesOfSuite(workspaceId: string, suiteId: string): Promise<SimulationCase[]> {
      const rows = await db
        .selectFrom('simulation_cases')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('suite_id', '=', suiteId)
        .orderBy('seq')
        .execute();
      return rows.map(toCase);
    },

    /** The cases of several suites, by suite id, each in the order created (every id has an entry). */
    async casesOfSuites(
      workspaceId: string,
      suiteIds: readonly string[],
    ): Promise<Map<string, SimulationCase[]>> {
      const out = new Map<string, SimulationCase[]>(suiteIds.map((id) => [id, []]));
      if (suiteIds.length === 0) return out;
      const rows = await db
        .selectFrom('simulation_cases')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('suite_id', 'in', [...suiteIds])
        .orderBy('seq')
        .execute();
      for (const row of rows) out.get(row.suite_id ?? '')?.push(toCase(row));
      return out;
    },

    /**
     * The cases that test `agentId`: those based on it and those in one of its suites, newest
     * first.
     */
    async casesOfAgent(workspaceId: string, agentId: string): Promise<SimulationCase[]> {
      const rows = await db
        .selectFrom('simulation_cases as c')
        .selectAll('c')
        .where('c.workspace_id', '=', workspaceId)
        .where((eb) =>
          eb.or([
            eb('c.base_agent_id', '=', agentId),
            eb(
              'c.suite_id',
              'in',
              eb
                .selectFrom('simulation_suites as s')
                .select('s.id')
                .where('s.workspace_id', '=', workspaceId)
                .where('s.model_id', '=', agentId),
            ),
          ]),
        )
        .orderBy('c.seq', 'desc')
        .execute();
      return rows.map(toCase);
    },
  };
}

export type SimulationsRepo = ReturnType<typeof simulationsRepo>;
