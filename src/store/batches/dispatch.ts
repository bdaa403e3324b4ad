import { sql } from 'kysely';
import type { Db } from '../database.ts';
import type { RepoContext } from '../repo-context.ts';

// Claimed recipients become `dispatched` with their calls, in the transaction that creates the
// calls; `DispatchRefused` rolls that transaction back when the claim no longer holds.

/** `dispatchMany` must not happen (see there); thrown so that the transaction rolls back. */
export class DispatchRefused extends Error {
  override name = 'DispatchRefused';
}

export function batchDispatch({ db, clock, dialect }: RepoContext) {
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

  return {
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
  };
}
