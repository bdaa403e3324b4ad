import { sql } from 'kysely';
import type { RepoContext } from '../repo-context.ts';
import { admittable, busy, lockSlots, ringing, slotsWanted } from './slot-accounting.ts';
import type { Call } from './types.ts';

// Taking slots under the workspace's slot lock: waiting calls admitted, a slot for a call that
// does not wait, and the counts the callers decide by.

export function callAdmission(ctx: RepoContext) {
  const { db, clock, transact } = ctx;
  return {
    /** Calls holding a slot now. */
    busy: (workspaceId: string) => busy(db, workspaceId),

    /** Calls holding a slot and calls waiting for one, in one statement (one snapshot). */
    slotsWanted: (workspaceId: string) => slotsWanted(db, workspaceId),

    /**
     * Gives free slots to waiting calls, oldest first (see `admittable`): each admitted call moves
     * from `pending` to `ringing`, holds a slot and is owned by `node`. Other processes admitting
     * at the same time wait for the workspace lock, so the cap holds across processes.
     */
    async admit(workspaceId: string, max: number, node: string, limit = 1000): Promise<Call[]> {
      return transact(async (trx) => {
        await lockSlots(ctx, trx, workspaceId);
        const held = await busy(trx, workspaceId);
        const ids = await admittable(trx, workspaceId, node, held, max, Math.min(limit, max - held));
        return ringing(ctx, trx, ids, node);
      });
    },

    /**
     * Takes a slot for a call that does not wait (an inbound call) if one is free; false when the
     * workspace is at its limit.
     */
    async takeSlot(workspaceId: string, id: string, max: number): Promise<boolean> {
      return transact(async (trx) => {
        await lockSlots(ctx, trx, workspaceId);
        if ((await busy(trx, workspaceId)) >= max) return false;
        const result = await trx
          .updateTable('calls')
          .set({ holds_slot: 1, version: sql`version + 1`, updated_at: clock.now() })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) > 0;
      });
    },
  };
}
