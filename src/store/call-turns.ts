import type { Db } from './database.ts';
import type { Transact } from './knowledge.ts';

// The turns of running calls' transcripts, written as the calls go (migration 022). A call's
// writer sends the turns that changed since its last write (a turn can change: an agent line cut
// short by a barge-in keeps only what was heard) and the count it has now (a turn the
// conversation took back goes); a node taking over a dead one's calls reads what was left.

export interface CallTurn {
  speaker: 'agent' | 'user';
  text: string;
  /** When the turn was complete, ms. */
  at: number;
  /** The agent was cut off; `text` is what was delivered. */
  interrupted: boolean;
}

export interface CallTurnsWrite {
  workspaceId: string;
  callId: string;
  /** The place of `turns[0]` in the transcript; the turns before it are as stored. */
  from: number;
  /** The turns from `from` to the end: stored turns after them are removed. */
  turns: readonly CallTurn[];
}

/** Rows per insert statement (7 parameters each: well under SQLite's limit). */
const ROWS_PER_INSERT = 1000;

export function callTurnsRepo(db: Db, transact: Transact = (fn) => fn(db)) {
  return {
    /** Applies several calls' writes atomically (one delete, then upserts in large statements). */
    async write(writes: readonly CallTurnsWrite[]): Promise<void> {
      if (writes.length === 0) return;
      const rows = writes.flatMap((w) =>
        w.turns.map((t, i) => ({
          call_id: w.callId,
          turn: w.from + i,
          workspace_id: w.workspaceId,
          speaker: t.speaker,
          text: t.text,
          at: t.at,
          interrupted: t.interrupted ? 1 : 0,
        })),
      );
      await transact(async (trx) => {
        await trx
          .deleteFrom('call_turns')
          .where((eb) =>
            eb.or(
              writes.map((w) =>
                eb.and([eb('call_id', '=', w.callId), eb('turn', '>=', w.from + w.turns.length)]),
              ),
            ),
          )
          .execute();
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          await trx
            .insertInto('call_turns')
            .values(rows.slice(i, i + ROWS_PER_INSERT))
            .onConflict((oc) =>
              oc.columns(['call_id', 'turn']).doUpdateSet((eb) => ({
                speaker: eb.ref('excluded.speaker'),
                text: eb.ref('excluded.text'),
                at: eb.ref('excluded.at'),
                interrupted: eb.ref('excluded.interrupted'),
              })),
            )
            .execute();
        }
      });
    },

    /** The call's stored turns, in order (none for a call of another workspace). */
    async of(workspaceId: string, callId: string): Promise<CallTurn[]> {
      const rows = await db
        .selectFrom('call_turns')
        .select(['speaker', 'text', 'at', 'interrupted'])
        .where('call_id', '=', callId)
        .where('workspace_id', '=', workspaceId)
        .orderBy('turn')
        .execute();
      return rows.map((r) => ({
        speaker: r.speaker === 'agent' ? 'agent' : 'user',
        text: r.text,
        at: Number(r.at),
        interrupted: Number(r.interrupted) === 1,
      }));
    },

    /** Forgets the turns of calls whose record now holds the transcript. */
    async drop(callIds: readonly string[]): Promise<void> {
      if (callIds.length === 0) return;
      await db
        .deleteFrom('call_turns')
        .where('call_id', 'in', [...callIds])
        .execute();
    },
  };
}

export type CallTurnsRepo = ReturnType<typeof callTurnsRepo>;
