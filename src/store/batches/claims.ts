import type { RepoContext } from '../repo-context.ts';
import { countCanceled, maybeComplete } from './counters.ts';
import { lockBatch } from './lookup.ts';
import { toTask } from './rows.ts';
import type { BatchTask } from './types.ts';

// Recipients claimed by a dialer, and claims given back: not dispatched, or left by a node that
// stopped.

export function batchClaims({ db, clock, dialect, transact }: RepoContext) {
  return {
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

    /**
     * Claims of `node` that were not dispatched (`dispatchMany` said no, and the calls were rolled
     * back): canceled with their batch, otherwise back in the queue. Answers how many moved.
     */
    async returnClaims(workspaceId: string, batchId: string, taskIds: readonly string[], node: string) {
      if (taskIds.length === 0) return 0;
      return transact(async (trx) => {
        const batch = await lockBatch(dialect, trx, workspaceId, batchId);
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
          await countCanceled(trx, batchId, n, now);
          await maybeComplete(trx, batchId, now);
        }
        return n;
      });
    },

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
  };
}
