import { sql, type Selectable } from 'kysely';
import { newId, type Clock, type VariableMap } from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { Page } from './records.ts';
import type { SimulationSessionTable, SimulationTable } from './schema.ts';
import { newestFirstPage } from './paging.ts';

// Executions of simulation suites: a session per execute request and one simulation per case.
// The session's counters change in the same transaction as the simulation they count. A
// simulation started alone (`POST /v2/simulations`) makes a session of its own (no suite: its
// `suiteId` is '') or joins an existing one, whose total grows by one.
//
// Lists of a workspace's sessions and simulations are newest first (`seq`), on the indexes of
// migration 018.

type RunRow = Selectable<SimulationTable>;

/** The statuses a simulation shows: one not started yet (`pending`) shows as `in-progress`. */
export type SimulationListStatus = 'in-progress' | 'completed' | 'failed';

export interface SimulationSessionListOptions {
  /** From 1. */
  pageNumber: number;
  pageSize: number;
  /** Sessions of this agent. */
  modelId?: string;
  /** Inclusive bounds on created_at (ms). */
  startDate?: number;
  endDate?: number;
}

export interface SimulationRunListOptions extends SimulationSessionListOptions {
  sessionId?: string;
  status?: SimulationListStatus;
}

export type SimulationRunStatus = 'pending' | 'in-progress' | 'completed' | 'failed';

export interface SimulationSession {
  id: string;
  workspaceId: string;
  suiteId: string;
  modelId: string;
  /** in-progress | completed */
  status: string;
  maxTurns: number;
  total: number;
  completed: number;
  failed: number;
  createdAt: number;
  updatedAt: number;
}

export interface CriterionVerdict {
  criterion: string;
  passed: boolean;
  reason: string;
}

export interface SimulationRun {
  id: string;
  sessionId: string;
  workspaceId: string;
  caseId: string;
  status: SimulationRunStatus;
  passed: boolean | null;
  criteriaResults: CriterionVerdict[];
  transcript: string;
  turns: number;
  error: string | null;
  /** The variables a simulation started alone runs with; null for those of a suite's execution. */
  customVariables: VariableMap | null;
  createdAt: number;
  updatedAt: number;
}

function toSession(row: Selectable<SimulationSessionTable>): SimulationSession {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    suiteId: row.suite_id,
    modelId: row.model_id,
    status: row.status,
    maxTurns: Number(row.max_turns),
    total: Number(row.total),
    completed: Number(row.completed),
    failed: Number(row.failed),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toRun(row: RunRow): SimulationRun {
  return {
    id: row.id,
    sessionId: row.session_id,
    workspaceId: row.workspace_id,
    caseId: row.case_id,
    status: row.status as SimulationRunStatus,
    passed: row.passed === null || row.passed === undefined ? null : Number(row.passed) === 1,
    criteriaResults: fromJson<CriterionVerdict[]>(row.criteria_results) ?? [],
    transcript: row.transcript,
    turns: Number(row.turns),
    error: row.error,
    customVariables: fromJson<VariableMap>(row.custom_variables),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

function pendingRun(workspaceId: string, sessionId: string, caseId: string, now: number) {
  return {
    id: newId(),
    session_id: sessionId,
    workspace_id: workspaceId,
    case_id: caseId,
    status: 'pending',
    passed: null,
    criteria_results: toJson([]),
    error: null,
    created_at: now,
    updated_at: now,
  };
}

export function simulationRunsRepo(db: Db, clock: Clock, transact: Transact = (fn) => fn(db)) {
  /** The workspace's sessions filtered as asked (newest first by the caller). */
  function sessionsQuery(workspaceId: string, options: SimulationSessionListOptions) {
    let q = db.selectFrom('simulation_sessions').where('workspace_id', '=', workspaceId);
    if (options.modelId !== undefined) q = q.where('model_id', '=', options.modelId);
    if (options.startDate !== undefined) q = q.where('created_at', '>=', options.startDate);
    if (options.endDate !== undefined) q = q.where('created_at', '<=', options.endDate);
    return q;
  }

  return {
    /**
     * One more pending simulation of `caseId` in an existing session of the workspace (null when
     * there is none): its total grows by one and it is in progress again until that one ends.
     */
    async addRun(
      workspaceId: string,
      sessionId: string,
      input: { caseId: string; customVariables?: VariableMap | null },
    ): Promise<{ session: SimulationSession; run: SimulationRun } | null> {
      return transact(async (trx) => {
        const now = clock.now();
        const session = await trx
          .updateTable('simulation_sessions')
          .set((eb) => ({ total: eb('total', '+', 1), status: 'in-progress', updated_at: now }))
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', sessionId)
          .returningAll()
          .executeTakeFirst();
        if (!session) return null;
        const run = await trx
          .insertInto('simulations')
          .values({
            ...pendingRun(workspaceId, session.id, input.caseId, now),
            custom_variables: toJson(input.customVariables ?? null),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { session: toSession(session), run: toRun(run) };
      });
    },

    /** The workspace's sessions, newest first. */
    async listSessions(
      workspaceId: string,
      options: SimulationSessionListOptions,
    ): Promise<Page<SimulationSession>> {
      const base = sessionsQuery(workspaceId, options);
      return newestFirstPage(base, options, toSession);
    },

    /** Sessions of the workspace by id (those that exist), in no particular order. */
    async getSessions(workspaceId: string, ids: readonly string[]): Promise<SimulationSession[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('simulation_sessions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...ids])
        .execute();
      return rows.map(toSession);
    },

    /** The simulations of these sessions, each session's in the order created. */
    async runsOfSessions(sessionIds: readonly string[]): Promise<SimulationRun[]> {
      if (sessionIds.length === 0) return [];
      const rows = await db
        .selectFrom('simulations')
        .selectAll()
        .where('session_id', 'in', [...sessionIds])
        .orderBy('seq')
        .execute();
      return rows.map(toRun);
    },

    /**
     * The workspace's simulations, newest first. `modelId` is the agent tested (its session's);
     * `in-progress` includes the simulations not started yet.
     */
    async listRuns(workspaceId: string, options: SimulationRunListOptions): Promise<Page<SimulationRun>> {
      let base = db.selectFrom('simulations').where('workspace_id', '=', workspaceId);
      if (options.sessionId !== undefined) base = base.where('session_id', '=', options.sessionId);
      if (options.status === 'in-progress') base = base.where('status', 'in', ['pending', 'in-progress']);
      else if (options.status !== undefined) base = base.where('status', '=', options.status);
      if (options.startDate !== undefined) base = base.where('created_at', '>=', options.startDate);
      if (options.endDate !== undefined) base = base.where('created_at', '<=', options.endDate);
      if (options.modelId !== undefined) {
        const sessions = db
          .selectFrom('simulation_sessions')
          .select('id')
          .where('workspace_id', '=', workspaceId)
          .where('model_id', '=', options.modelId);
        base = base.where('session_id', 'in', sessions);
      }
      return newestFirstPage(base, options, toRun);
    },

    /**
     * A session with one pending simulation per case, in the order given. `suiteId` is '' for a
     * session of no suite; `customVariables` go with every simulation of it.
     */
    async createSession(
      workspaceId: string,
      input: {
        suiteId: string;
        modelId: string;
        maxTurns: number;
        caseIds: readonly string[];
        customVariables?: VariableMap | null;
      },
    ): Promise<{ session: SimulationSession; runs: SimulationRun[] }> {
      return transact(async (trx) => {
        const now = clock.now();
        const row = await trx
          .insertInto('simulation_sessions')
          .values({
            id: newId(),
            workspace_id: workspaceId,
            suite_id: input.suiteId,
            model_id: input.modelId,
            status: input.caseIds.length > 0 ? 'in-progress' : 'completed',
            max_turns: input.maxTurns,
            total: input.caseIds.length,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const runs =
          input.caseIds.length === 0
            ? []
            : await trx
                .insertInto('simulations')
                .values(
                  input.caseIds.map((caseId) => ({
                    ...pendingRun(workspaceId, row.id, caseId, now),
                    custom_variables: toJson(input.customVariables ?? null),
                  })),
                )
                .returningAll()
                .execute();
        return { session: toSession(row), runs: runs.map(toRun).sort((a, b) => a.createdAt - b.createdAt) };
      });
    },

    async getSession(workspaceId: string, id: string): Promise<SimulationSession | null> {
      const row = await db
        .selectFrom('simulation_sessions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toSession(row) : null;
    },

    async sessionsOfSuite(workspaceId: string, suiteId: string, limit: number, offset: number) {
      const base = db
        .selectFrom('simulation_sessions')
        .where('workspace_id', '=', workspaceId)
        .where('suite_id', '=', suiteId);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ]);
      return { sessions: rows.map(toSession), total: Number(count?.n ?? 0) };
    },

    async runsOfSession(sessionId: string): Promise<SimulationRun[]> {
      const rows = await db
        .selectFrom('simulations')
        .selectAll()
        .where('session_id', '=', sessionId)
        .orderBy('seq')
        .execute();
      return rows.map(toRun);
    },

    async getRun(workspaceId: string, id: string): Promise<SimulationRun | null> {
      const row = await db
        .selectFrom('simulations')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toRun(row) : null;
    },

    async startRun(id: string): Promise<void> {
      await db
        .updateTable('simulations')
        .set({ status: 'in-progress', updated_at: clock.now() })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
    },

    /** The run's outcome and its session's counters, together; the session ends with its last run. */
    async finishRun(
      id: string,
      outcome: {
        status: 'completed' | 'failed';
        passed: boolean | null;
        criteriaResults: CriterionVerdict[];
        transcript: string;
        turns: number;
        error: string | null;
      },
    ): Promise<void> {
      await transact(async (trx) => {
        const now = clock.now();
        const run = await trx
          .updateTable('simulations')
          .set({
            status: outcome.status,
            passed: outcome.passed === null ? null : outcome.passed ? 1 : 0,
            criteria_results: toJson(outcome.criteriaResults),
            transcript: outcome.transcript,
            turns: outcome.turns,
            error: outcome.error,
            updated_at: now,
          })
          .where('id', '=', id)
          .where('status', 'in', ['pending', 'in-progress'])
          .returning(['session_id'])
          .executeTakeFirst();
        if (!run) return;
        await trx
          .updateTable('simulation_sessions')
          .set((eb) =>
            outcome.status === 'completed'
              ? { completed: eb('completed', '+', 1), updated_at: now }
              : { failed: eb('failed', '+', 1), updated_at: now },
          )
          .where('id', '=', run.session_id)
          .execute();
        await trx
          .updateTable('simulation_sessions')
          .set({ status: 'completed', updated_at: now })
          .where('id', '=', run.session_id)
          .where(sql<boolean>`completed + failed >= total`)
          .execute();
      });
    },
  };
}

export type SimulationRunsRepo = ReturnType<typeof simulationRunsRepo>;
