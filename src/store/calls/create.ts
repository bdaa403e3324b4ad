import type { RepoContext } from '../repo-context.ts';
import { callRow, toCall } from './rows.ts';
import { lockSlots, slotsWanted } from './slot-accounting.ts';
import type { Call, NewCall } from './types.ts';

// Creating calls: one as given, or several at once with as many admitted as there are free slots.

export function callCreation(ctx: RepoContext) {
  const { db, clock } = ctx;
  return {
    async create(workspaceId: string, input: NewCall): Promise<Call> {
      const row = await db
        .insertInto('calls')
        .values(callRow(workspaceId, input, clock.now()))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCall(row);
    },

    /**
     * Creates `pending` calls and admits at once as many as the workspace has free slots, after
     * the calls already waiting (they keep their turn): those are `ringing`, hold a slot and are
     * owned by `node`. The slot lock is held to the end of the caller's transaction, so the cap
     * holds across processes: run it in a transaction. Answers the admitted calls, in order; the
     * others wait for `admit`.
     */
    async createAdmitted(
      workspaceId: string,
      inputs: readonly NewCall[],
      max: number,
      node: string,
    ): Promise<Call[]> {
      if (inputs.length === 0) return [];
      await lockSlots(ctx, db, workspaceId);
      const free = Math.max(0, Math.min(inputs.length, max - (await slotsWanted(db, workspaceId))));
      const now = clock.now();
      const rows = inputs.map((input, i) =>
        callRow(
          workspaceId,
          i < free ? { ...input, status: 'ringing', holdsSlot: true, node, ringingAt: now } : input,
          now,
        ),
      );
      if (free === 0) {
        await db.insertInto('calls').values(rows).execute();
        return [];
      }
      // Only the admitted rows come back (the caller starts them).
      const admitted = await db.insertInto('calls').values(rows.slice(0, free)).returningAll().execute();
      if (free < rows.length) await db.insertInto('calls').values(rows.slice(free)).execute();
      return admitted.map(toCall).sort((a, b) => a.seq - b.seq);
    },
  };
}
