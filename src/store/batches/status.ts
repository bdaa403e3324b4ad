import type { Db } from '../database.ts';
import type { RepoContext } from '../repo-context.ts';
import { countCanceled } from './counters.ts';
import { getBatch, lockBatch } from './lookup.ts';
import type { Batch, BatchStatus } from './types.ts';

// A batch's moves (pause, resume, cancel...), with what a pause or a cancel does to the calls
// and recipients it had not dialed yet.

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

export function batchMoves({ clock, dialect, transact }: RepoContext) {
  return {
    /** Moves the batch from one of `from` to `to`; null when it is not in one of them. */
    async move(
      workspaceId: string,
      id: string,
      from: readonly BatchStatus[],
      to: BatchStatus,
    ): Promise<Batch | null> {
      return transact(async (trx) => {
        const batch = await lockBatch(dialect, trx, workspaceId, id);
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
          if (n > 0) await countCanceled(trx, id, n, now);
        }
        return getBatch(trx, workspaceId, id);
      });
    },
  };
}
