import type { RepoContext } from '../repo-context.ts';
import { getBatch } from './lookup.ts';
import { LISTED_COLUMNS, toBatch, toListedTask, type CallOutcome } from './rows.ts';
import type { Batch, BatchTaskWithCall, TaskStatus } from './types.ts';

// Reading batches and their recipients: one batch, a page of a workspace's, the batches the
// dialer works on or must expire, and a page of a batch's recipients with their calls' outcomes.

export function batchQueries({ db }: RepoContext) {
  return {
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
