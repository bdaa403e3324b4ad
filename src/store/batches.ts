import { sql, type Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { BatchTable, BatchTaskTable } from './schema.ts';

// Campaigns (batch calls) and their recipients. Counters live in the batch row and change in the
// same transaction as the recipients they count. A recipient moves queued -> claimed (taken by a
// dialer) -> dispatched (its call row exists) | failed | canceled; the call row and the move to
// `dispatched` commit together, so a claimed recipient without a call was provably not dialed.

export type BatchStatus = 'scheduled' | 'in_progress' | 'paused' | 'completed' | 'canceled';
export type TaskStatus = 'queued' | 'claimed' | 'dispatched' | 'failed' | 'canceled';

export const MAX_TASKS_PER_BATCH = 1_000_000;

export interface Batch {
  id: string;
  workspaceId: string;
  agentId: string;
  name: string;
  status: BatchStatus;
  fromPhoneNumber: string;
  fromProvider: string;
  triggerAt: number | null;
  reservedConcurrency: number;
  callTimeWindow: unknown;
  totalTaskCount: number;
  pendingCount: number;
  dispatchedCount: number;
  failedCount: number;
  canceledCount: number;
  callsEndedCount: number;
  lastDispatchAt: number | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

export interface NewTask {
  clientId?: string | null;
  toPhoneNumber: string;
  leadName?: string | null;
  leadEmail?: string | null;
  customVariables?: Record<string, unknown> | null;
  overrideModelId?: string | null;
}

export interface BatchTask extends Required<NewTask> {
  id: string;
  batchId: string;
  workspaceId: string;
  position: number;
  status: TaskStatus;
  errorMessage: string | null;
  callId: string | null;
  claimedBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A recipient as listed (what the API shows), with its call's outcome. */
export interface BatchTaskWithCall extends Omit<BatchTask, 'batchId' | 'workspaceId' | 'claimedBy'> {
  callStatus: string | null;
  endCallReason: string | null;
}

/** The columns a listed recipient needs (fewer columns read, fewer values made per row). */
const LISTED_COLUMNS = [
  'id',
  'position',
  'client_id',
  'to_phone_number',
  'lead_name',
  'lead_email',
  'custom_variables',
  'override_model_id',
  'status',
  'error_message',
  'call_id',
  'created_at',
  'updated_at',
] as const;

export interface NewBatch {
  agentId: string;
  name: string;
  fromPhoneNumber: string;
  fromProvider: string;
  triggerAt: number | null;
  reservedConcurrency: number;
  callTimeWindow: unknown;
  /** The batch expires this long after its creation. */
  lifetimeMs: number;
}

export type AppendResult =
  { ok: true; batch: Batch } | { ok: false; reason: 'not_found' | 'closed' | 'too_many'; batch?: Batch };

function toBatch(row: Selectable<BatchTable>): Batch {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    name: row.name,
    status: row.status as BatchStatus,
    fromPhoneNumber: row.from_phone_number,
    fromProvider: row.from_provider,
    triggerAt: n(row.trigger_at),
    reservedConcurrency: Number(row.reserved_concurrency),
    callTimeWindow: fromJson<unknown>(row.call_time_window),
    totalTaskCount: Number(row.total_task_count),
    pendingCount: Number(row.pending_count),
    dispatchedCount: Number(row.dispatched_count),
    failedCount: Number(row.failed_count),
    canceledCount: Number(row.canceled_count),
    callsEndedCount: Number(row.calls_ended_count),
    lastDispatchAt: n(row.last_dispatch_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
  };
}

type ListedRow = Pick<Selectable<BatchTaskTable>, (typeof LISTED_COLUMNS)[number]>;
type CallOutcome = { status: string; end_call_reason: string | null };

// Both mappers below build their record in one object literal, on purpose: spreading a record
// into a larger literal (`{ ...task, callStatus }`) made objects of about 1.1 KB instead of 0.2
// (measured with Node 20), the largest share of a listed page's garbage.

/** A recipient as listed, from the listed columns and its call's outcome. */
function toListedTask(row: ListedRow, call: CallOutcome | undefined): BatchTaskWithCall {
  return {
    id: row.id,
    position: Number(row.position),
    clientId: row.client_id,
    toPhoneNumber: row.to_phone_number,
    leadName: row.lead_name,
    leadEmail: row.lead_email,
    customVariables: fromJson<Record<string, unknown>>(row.custom_variables),
    overrideModelId: row.override_model_id,
    status: row.status as TaskStatus,
    errorMessage: row.error_message,
    callId: row.call_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    callStatus: call?.status ?? null,
    endCallReason: call?.end_call_reason ?? null,
  };
}

function toTask(row: Selectable<BatchTaskTable>): BatchTask {
  return {
    id: row.id,
    batchId: row.batch_id,
    workspaceId: row.workspace_id,
    position: Number(row.position),
    clientId: row.client_id,
    toPhoneNumber: row.to_phone_number,
    leadName: row.lead_name,
    leadEmail: row.lead_email,
    customVariables: fromJson<Record<string, unknown>>(row.custom_variables),
    overrideModelId: row.override_model_id,
    status: row.status as TaskStatus,
    errorMessage: row.error_message,
    callId: row.call_id,
    claimedBy: row.claimed_by,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** `dispatchMany` must not happen (see there); thrown so that the transaction rolls back. */
export class DispatchRefused extends Error {
  override name = 'DispatchRefused';
}

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

/** Columns one recipient row binds in `insertTasks`. */
const TASK_COLUMNS = 13;

export function batchesRepo(
  db: Db,
  clock: Clock,
  dialect: DialectName,
  transact: Transact = (fn) => fn(db),
  maxTasks = MAX_TASKS_PER_BATCH,
) {
  // Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535; rows per INSERT
  // follow from the columns a row binds (13 today: 2,520 rows on SQLite, 5,041 on PostgreSQL).
  const maxParameters = dialect === 'postgres' ? 65_535 : 32_766;

  async function lockBatch(trx: Db, workspaceId: string, id: string): Promise<Batch | null> {
    let q = trx
      .selectFrom('batches')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id);
    if (dialect === 'postgres') q = q.forUpdate();
    const row = await q.executeTakeFirst();
    return row ? toBatch(row) : null;
  }

  async function insertTasks(trx: Db, batch: Batch, tasks: readonly NewTask[], now: number) {
    const chunk = Math.floor(maxParameters / TASK_COLUMNS);
    for (let start = 0; start < tasks.length; start += chunk) {
      const rows = tasks.slice(start, start + chunk).map((t, i) => ({
        id: newId(),
        batch_id: batch.id,
        workspace_id: batch.workspaceId,
        position: batch.totalTaskCount + start + i,
        client_id: t.clientId ?? null,
        to_phone_number: t.toPhoneNumber,
        lead_name: t.leadName ?? null,
        lead_email: t.leadEmail ?? null,
        custom_variables: toJson(t.customVariables ?? null),
        override_model_id: t.overrideModelId ?? null,
        status: 'queued',
        created_at: now,
        updated_at: now,
      }));
      await trx.insertInto('batch_tasks').values(rows).execute();
    }
    await trx
      .updateTable('batches')
      .set((eb) => ({
        total_task_count: eb('total_task_count', '+', tasks.length),
        pending_count: eb('pending_count', '+', tasks.length),
        updated_at: now,
      }))
      .where('id', '=', batch.id)
      .execute();
  }

  /** Completes the batch when nothing is left to dial and every dispatched call has ended. */
  async function maybeComplete(trx: Db, batchId: string, now: number) {
    await trx
      .updateTable('batches')
      .set({ status: 'completed', updated_at: now })
      .where('id', '=', batchId)
      .where('status', 'in', ['scheduled', 'in_progress'])
      .where('pending_count', '=', 0)
      .where((eb) => eb('calls_ended_count', '>=', eb.ref('dispatched_count')))
      .where('total_task_count', '>', 0)
      .execute();
  }

  /**
   * Several claimed recipients of one batch become `dispatched` with their call ids, and the
   * batch's counters move, in the caller's transaction, which has already created the calls.
   * Throws `DispatchRefused` when that must not happen: the batch was paused or canceled since
   * the claim, or a recipient is no longer claimed (an abandoned-claim sweep took it back). The
   * throw rolls the caller's transaction back (no call exists, nothing half written); the caller
   * then hands the claims to `returnClaims`. The batch's row is locked by the last statement,
   * so calls ending (their counters are on that row) wait only for the commit, not for the whole
   * dispatch.
   */
  async function dispatchMany(
    batchId: string,
    items: readonly { taskId: string; callId: string }[],
  ): Promise<void> {
    if (items.length === 0) return;
    const now = clock.now();
    // One statement for the whole claim: each recipient gets its own call id through a CASE.
    const callIds = sql<string>`case id ${sql.join(
      items.map((i) => sql`when ${i.taskId} then ${i.callId}`),
      sql` `,
    )} end`;
    const ids = items.map((i) => i.taskId);
    const moveTasks = (qb: Db) =>
      qb
        .updateTable('batch_tasks')
        .set({ status: 'dispatched', call_id: callIds, updated_at: now })
        .where('id', 'in', ids)
        .where('batch_id', '=', batchId)
        .where('status', '=', 'claimed');
    const counters = {
      pending_count: sql<number>`pending_count - ${items.length}`,
      dispatched_count: sql<number>`dispatched_count + ${items.length}`,
      status: 'in_progress',
      last_dispatch_at: now,
      updated_at: now,
    };
    if (dialect === 'postgres') {
      // One round trip: the recipients' move in a data-modifying CTE, the counters only if every
      // recipient moved and the batch is still active (otherwise no row, and the caller's
      // transaction rolls the recipients' move back with the rest).
      const counted = await db
        .with('moved', () => moveTasks(db).returning('id'))
        .updateTable('batches')
        .set(counters)
        .where('id', '=', batchId)
        .where('status', 'in', ['scheduled', 'in_progress'])
        .where((eb) => eb(eb.selectFrom('moved').select(eb.fn.countAll<number>().as('n')), '=', items.length))
        .returning('id')
        .executeTakeFirst();
      if (!counted)
        throw new DispatchRefused(
          'the batch was paused or canceled since the claim, or a recipient is no longer claimed',
        );
      return;
    }
    const dispatched = await moveTasks(db).executeTakeFirst();
    if (Number(dispatched.numUpdatedRows) !== items.length)
      throw new DispatchRefused('a recipient is no longer claimed');
    const counted = await db
      .updateTable('batches')
      .set(counters)
      .where('id', '=', batchId)
      .where('status', 'in', ['scheduled', 'in_progress'])
      .executeTakeFirst();
    if (Number(counted.numUpdatedRows) !== 1)
      throw new DispatchRefused('the batch was paused or canceled since the claim');
  }

  /**
   * A paused or canceled batch's calls that wait for a slot (the dialer's standby calls) were
   * never dialed: they are deleted, and their recipients go back to the queue (pause) or are
   * canceled (cancel), in the transaction of the batch's move.
   */
  async function returnStandby(trx: Db, batchId: string, to: 'paused' | 'canceled', now: number) {
    const deleted = await trx
      .deleteFrom('calls')
      .where('batch_call_id', '=', batchId)
      .where('status', '=', 'pending')
      .returning(['id', 'batch_task_id'])
      .execute();
    const taskIds = deleted.flatMap((c) => (c.batch_task_id ? [c.batch_task_id] : []));
    if (taskIds.length === 0) return;
    const status = to === 'paused' ? 'queued' : 'canceled';
    const moved = await trx
      .updateTable('batch_tasks')
      .set({ status, call_id: null, claimed_by: null, claimed_at: null, updated_at: now })
      .where('batch_id', '=', batchId)
      .where('id', 'in', taskIds)
      .where('status', '=', 'dispatched')
      .executeTakeFirst();
    const n = Number(moved.numUpdatedRows);
    if (n === 0) return;
    await trx
      .updateTable('batches')
      .set((eb) => ({
        dispatched_count: eb('dispatched_count', '-', n),
        ...(to === 'paused'
          ? { pending_count: eb('pending_count', '+', n) }
          : { canceled_count: eb('canceled_count', '+', n) }),
      }))
      .where('id', '=', batchId)
      .execute();
  }

  async function getBatch(trx: Db, workspaceId: string, id: string) {
    const row = await trx
      .selectFrom('batches')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toBatch(row) : null;
  }

  return {
    /** Recipients one batch may hold. */
    maxTasks,

    async create(workspaceId: string, input: NewBatch, tasks: readonly NewTask[]): Promise<Batch> {
      return transact(async (trx) => {
        const now = clock.now();
        const row = await trx
          .insertInto('batches')
          .values({
            id: newId(),
            workspace_id: workspaceId,
            agent_id: input.agentId,
            name: input.name,
            status: 'scheduled',
            from_phone_number: input.fromPhoneNumber,
            from_provider: input.fromProvider,
            trigger_at: input.triggerAt,
            reserved_concurrency: input.reservedConcurrency,
            call_time_window: toJson(input.callTimeWindow ?? null),
            created_at: now,
            updated_at: now,
            expires_at: now + input.lifetimeMs,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        const batch = toBatch(row);
        await insertTasks(trx, batch, tasks, now);
        return (await getBatch(trx, workspaceId, batch.id))!;
      });
    },

    /** Adds recipients to an open batch, all or none. */
    async append(workspaceId: string, id: string, tasks: readonly NewTask[]): Promise<AppendResult> {
      return transact(async (trx) => {
        const batch = await lockBatch(trx, workspaceId, id);
        if (!batch) return { ok: false, reason: 'not_found' };
        if (batch.status === 'completed' || batch.status === 'canceled')
          return { ok: false, reason: 'closed', batch };
        if (batch.totalTaskCount + tasks.length > maxTasks) return { ok: false, reason: 'too_many', batch };
        const now = clock.now();
        await insertTasks(trx, batch, tasks, now);
        return { ok: true, batch: (await getBatch(trx, workspaceId, id))! };
      });
    },

    get: (workspaceId: string, id: string) => getBatch(db, workspaceId, id),

    async list(
      workspaceId: string,
      limit: number,
      offset: number,
    ): Promise<{ batches: Batch[]; total: number }> {
      const base = db.selectFrom('batches').where('workspace_id', '=', workspaceId);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ]);
      return { batches: rows.map(toBatch), total: Number(count?.n ?? 0) };
    },

    /**
     * Recipients in the order added. Without a status filter, `offset` is the position (a range
     * read on the unique (batch, position) index, as cheap at 999,900 as at 0). The calls'
     * outcomes are read by a second lookup, and only for recipients that have a call: a join
     * would cost a probe per row on pages of recipients not dialed yet.
     */
    async listTasks(
      batchId: string,
      options: { limit: number; offset: number; status?: TaskStatus },
    ): Promise<BatchTaskWithCall[]> {
      let q = db.selectFrom('batch_tasks').select(LISTED_COLUMNS).where('batch_id', '=', batchId);
      if (options.status) {
        // The page's positions come off the (batch, status, position) index alone, then only those
        // rows are read (a deferred join), not every row the offset skips.
        const page = db
          .selectFrom('batch_tasks')
          .select('position')
          .where('batch_id', '=', batchId)
          .where('status', '=', options.status)
          .orderBy('position')
          .limit(options.limit)
          .offset(options.offset);
        q = q.where('position', 'in', page).orderBy('position');
      } else {
        q = q
          .where('position', '>=', options.offset)
          .where('position', '<', options.offset + options.limit)
          .orderBy('position');
      }
      const rows = await q.execute();
      const callIds = rows.flatMap((r) => (r.call_id ? [r.call_id] : []));
      const outcomes = new Map<string, CallOutcome>();
      if (callIds.length > 0) {
        const calls = await db
          .selectFrom('calls')
          .select(['id', 'status', 'end_call_reason'])
          .where('id', 'in', callIds)
          .execute();
        for (const c of calls) outcomes.set(c.id, c);
      }
      return rows.map((r) => toListedTask(r, r.call_id ? outcomes.get(r.call_id) : undefined));
    },

    /** Counts recipients with `status` (for the filtered list's total). */
    async countTasks(batchId: string, status: TaskStatus): Promise<number> {
      const row = await db
        .selectFrom('batch_tasks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('batch_id', '=', batchId)
        .where('status', '=', status)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Moves the batch from one of `from` to `to`; null when it is not in one of them. */
    async move(
      workspaceId: string,
      id: string,
      from: readonly BatchStatus[],
      to: BatchStatus,
    ): Promise<Batch | null> {
      return transact(async (trx) => {
        const batch = await lockBatch(trx, workspaceId, id);
        if (!batch || !from.includes(batch.status)) return null;
        const now = clock.now();
        await trx.updateTable('batches').set({ status: to, updated_at: now }).where('id', '=', id).execute();
        if (to === 'paused' || to === 'canceled') await returnStandby(trx, id, to, now);
        if (to === 'canceled') {
          // Undialed recipients are canceled and never called.
          const canceled = await trx
            .updateTable('batch_tasks')
            .set({ status: 'canceled', updated_at: now })
            .where('batch_id', '=', id)
            .where('status', '=', 'queued')
            .executeTakeFirst();
          const n = Number(canceled.numUpdatedRows);
          if (n > 0) {
            await trx
              .updateTable('batches')
              .set((eb) => ({
                pending_count: eb('pending_count', '-', n),
                canceled_count: eb('canceled_count', '+', n),
              }))
              .where('id', '=', id)
              .execute();
          }
        }
        return getBatch(trx, workspaceId, id);
      });
    },

    /** Batches the dialer may dial from now (scheduled or in progress). */
    async active(limit = 1000): Promise<Batch[]> {
      const rows = await db
        .selectFrom('batches')
        .selectAll()
        .where('status', 'in', ['scheduled', 'in_progress'])
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map(toBatch);
    },

    /**
     * Takes up to `n` queued recipients of an active batch, in order, for `node`. On PostgreSQL,
     * rows another process is claiming are skipped (SKIP LOCKED), never taken twice.
     */
    async claim(batchId: string, n: number, node: string): Promise<BatchTask[]> {
      if (n <= 0) return [];
      // One statement: the pick (skipping rows another process is claiming, on PostgreSQL) and
      // the move to `claimed`, so a claim is a single round trip. The pick is a materialized CTE:
      // as an IN subquery, PostgreSQL may run it again per row, and SKIP LOCKED then finds other
      // rows each time (more than `n` claimed).
      const now = clock.now();
      const rows = await db
        .with(
          (cte) => cte('picked').materialized(),
          (qb) => {
            let pick = qb
              .selectFrom('batch_tasks')
              .select('id')
              .where('batch_id', '=', batchId)
              .where('status', '=', 'queued')
              .orderBy('position')
              .limit(n);
            if (dialect === 'postgres') pick = pick.forUpdate().skipLocked();
            return pick;
          },
        )
        .updateTable('batch_tasks')
        .set({ status: 'claimed', claimed_by: node, claimed_at: now, updated_at: now })
        .where('id', 'in', (eb) => eb.selectFrom('picked').select('picked.id'))
        .where('status', '=', 'queued')
        .returningAll()
        .execute();
      return rows.map(toTask).sort((a, b) => a.position - b.position);
    },

    /** One recipient's `dispatchMany` (tests). */
    async dispatch(taskId: string, callId: string): Promise<void> {
      const task = await db
        .selectFrom('batch_tasks')
        .select('batch_id')
        .where('id', '=', taskId)
        .executeTakeFirst();
      if (!task) throw new DispatchRefused('no such recipient');
      await dispatchMany(task.batch_id, [{ taskId, callId }]);
    },

    dispatchMany,

    /**
     * Claims of `node` that were not dispatched (`dispatchMany` said no, and the calls were rolled
     * back): canceled with their batch, otherwise back in the queue. Answers how many moved.
     */
    async returnClaims(workspaceId: string, batchId: string, taskIds: readonly string[], node: string) {
      if (taskIds.length === 0) return 0;
      return transact(async (trx) => {
        const batch = await lockBatch(trx, workspaceId, batchId);
        if (!batch) return 0;
        const to = batch.status === 'canceled' || batch.status === 'completed' ? 'canceled' : 'queued';
        const now = clock.now();
        const moved = await trx
          .updateTable('batch_tasks')
          .set({ status: to, claimed_by: null, claimed_at: null, updated_at: now })
          .where('id', 'in', [...taskIds])
          .where('batch_id', '=', batchId)
          .where('status', '=', 'claimed')
          .where('claimed_by', '=', node)
          .executeTakeFirst();
        const n = Number(moved.numUpdatedRows);
        if (to === 'canceled' && n > 0) {
          await trx
            .updateTable('batches')
            .set((eb) => ({
              pending_count: eb('pending_count', '-', n),
              canceled_count: eb('canceled_count', '+', n),
              updated_at: now,
            }))
            .where('id', '=', batchId)
            .execute();
          await maybeComplete(trx, batchId, now);
        }
        return n;
      });
    },

    /** A claimed recipient that cannot be called (not dialable, unknown agent...). */
    async fail(taskId: string, errorMessage: string): Promise<void> {
      const now = clock.now();
      await transact(async (trx) => {
        const task = await trx
          .updateTable('batch_tasks')
          .set({ status: 'failed', error_message: errorMessage, updated_at: now })
          .where('id', '=', taskId)
          .where('status', 'in', ['claimed', 'queued'])
          .returning(['batch_id'])
          .executeTakeFirst();
        if (!task) return;
        await trx
          .updateTable('batches')
          .set((eb) => ({
            pending_count: eb('pending_count', '-', 1),
            failed_count: eb('failed_count', '+', 1),
            updated_at: now,
          }))
          .where('id', '=', task.batch_id)
          .execute();
        await maybeComplete(trx, task.batch_id, now);
      });
    },

    /** Called in the transaction that ends `ended` calls of the batch (default one). */
    async callEnded(batchId: string, ended = 1): Promise<void> {
      const now = clock.now();
      // One statement: the counter, and the completion when this was the last call (SET sees the
      // row as it was, hence `calls_ended_count + ended`).
      await db
        .updateTable('batches')
        .set((eb) => ({
          calls_ended_count: eb('calls_ended_count', '+', ended),
          status: sql<string>`case when status in ('scheduled', 'in_progress') and pending_count = 0
            and calls_ended_count + ${ended} >= dispatched_count and total_task_count > 0
            then 'completed' else status end`,
          updated_at: now,
        }))
        .where('id', '=', batchId)
        .execute();
    },

    /** Completes the batch if it is done (after failures or cancellations of its last recipients). */
    complete: (batchId: string) => maybeComplete(db, batchId, clock.now()),

    /**
     * Recipients claimed by `node` (or by anyone before `claimedBefore`) that have no call: they
     * were provably not dialed, so they go back to the queue.
     */
    async releaseClaims(filter: { node?: string; claimedBefore?: number }): Promise<number> {
      let q = db
        .updateTable('batch_tasks')
        .set({ status: 'queued', claimed_by: null, claimed_at: null, updated_at: clock.now() })
        .where('status', '=', 'claimed')
        .where('call_id', 'is', null);
      if (filter.node !== undefined) q = q.where('claimed_by', '=', filter.node);
      if (filter.claimedBefore !== undefined) q = q.where('claimed_at', '<', filter.claimedBefore);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Batches past their expiry: canceled, their queued recipients with them. */
    async expired(now: number): Promise<Batch[]> {
      const rows = await db
        .selectFrom('batches')
        .selectAll()
        .where('status', 'in', ['scheduled', 'in_progress', 'paused'])
        .where('expires_at', '<=', now)
        .execute();
      return rows.map(toBatch);
    },
  };
}

export type BatchesRepo = ReturnType<typeof batchesRepo>;
