import { sql } from 'kysely';
import type { Db } from '../database.ts';
import type { RepoContext } from '../repo-context.ts';

// The batch's counters as its recipients and calls finish (failed, canceled, ended), and its
// completion once nothing is left to dial and every call has ended.

/** Completes the batch when nothing is left to dial and every dispatched call has ended. */
export async function maybeComplete(trx: Db, batchId: string, now: number) {
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

/** `n` recipients that were still to dial are canceled: the batch's counters follow. */
export async function countCanceled(trx: Db, batchId: string, n: number, now: number) {
  await trx
    .updateTable('batches')
    .set((eb) => ({
      pending_count: eb('pending_count', '-', n),
      canceled_count: eb('canceled_count', '+', n),
      updated_at: now,
    }))
    .where('id', '=', batchId)
    .execute();
}

export function batchCounters({ db, clock, transact }: RepoContext) {
  return {
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
  };
}
