import { sql } from 'kysely';
import type { RepoContext } from '../repo-context.ts';
import { patchValues, toCall } from './rows.ts';
import type { Call, CallPatch } from './types.ts';

// A call's moves, one at a time: a compare and set on its status (`update`), and the removal of a
// call that has ended for good (`remove`).

/** `update` (see there), which `updateMany` also runs one move at a time. */
export function updateOne({ db, clock }: RepoContext) {
  return async (
    workspaceId: string,
    id: string,
    from: readonly string[],
    patch: CallPatch,
    version?: number,
    whileAfterCall = false,
  ): Promise<Call | null> => {
    let q = db
      .updateTable('calls')
      .set({ ...patchValues(patch), version: sql`version + 1`, updated_at: clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('status', 'in', [...from]);
    if (version !== undefined) q = q.where('version', '=', version);
    if (whileAfterCall) q = q.where('after_call', '=', 1);
    const row = await q.returningAll().executeTakeFirst();
    return row ? toCall(row) : null;
  };
}

export function callMoves(ctx: RepoContext) {
  const { db } = ctx;
  return {
    /**
     * Applies `patch` if the call is still in one of `from` (and, when given, at `version`);
     * null when it is not (another writer moved it first). Bumps the version.
     */
    update: updateOne(ctx),

    /**
     * Deletes a call of the workspace if it is in one of `finalStatuses` (the caller's list of
     * statuses that never change again: src/calls' FINAL_STATUSES) and holds no slot; false when
     * there is no such call. Only the call row goes: nothing references it by a foreign key, and
     * the rows that name it are history or still owed to someone, so they stay: webhook logs
     * (attempts made), webhook deliveries (a post-call webhook still pending must go out; its
     * payload is self-contained) and the batch recipient it was dialed for (the batch's counts
     * include it; its listing shows no call status once the call is gone).
     */
    async remove(workspaceId: string, id: string, finalStatuses: readonly string[]): Promise<boolean> {
      if (finalStatuses.length === 0) return false;
      const result = await db
        .deleteFrom('calls')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .where('status', 'in', [...finalStatuses])
        .where('holds_slot', '=', 0)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
