import { sql, type Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { SimulationSessionTable, SimulationTable } from './schema.ts';

// Executions of simulation suites: a session per execute request and one simulation per case.
// The session's counters change in the same transaction as the simulation they count.

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

function toRun(row: Selectable<SimulationTable>): SimulationRun {
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
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

export function simulationRunsRepo(db: Db, clock: Clock, transact: Transact = (fn) => fn(db)) {
  return {
    /** A session with one pending simulation per case, in the order given. */
    async createSession(
      workspaceId: string,
      input: { suiteId: string; modelId: string; maxTurns: number; caseIds: readonly string[] },
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
                    id: newId(),
                    session_id: row.id,
                    workspace_id: workspaceId,
                    case_id: caseId,
                    status: 'pending',
                    passed: null,
                    criteria_results: toJson([]),
                    error: null,
                    created_at: now,
                    updated_at: now,
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
