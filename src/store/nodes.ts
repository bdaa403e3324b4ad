import type { Clock } from '../core/index.ts';
import type { Db } from './database.ts';

// Liveness of the processes that run calls and campaigns (see migration 013).
export function nodesRepo(db: Db, clock: Clock) {
  return {
    /** Records that `name` is alive now. */
    async heartbeat(name: string): Promise<void> {
      const now = clock.now();
      await db
        .insertInto('nodes')
        .values({ name, started_at: now, last_seen_at: now })
        .onConflict((oc) => oc.column('name').doUpdateSet({ last_seen_at: now }))
        .execute();
    },
    /** Nodes other than `except` not seen since `before`. */
    async silentSince(before: number, except: string): Promise<string[]> {
      const rows = await db
        .selectFrom('nodes')
        .select('name')
        .where('last_seen_at', '<', before)
        .where('name', '<>', except)
        .execute();
      return rows.map((r) => r.name);
    },
    /** How many nodes other than `except` were seen at or after `since`. */
    async othersSeenSince(since: number, except: string): Promise<number> {
      const row = await db
        .selectFrom('nodes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('last_seen_at', '>=', since)
        .where('name', '<>', except)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Forgets a node whose work has been taken over, if it has not come back meanwhile. */
    async forget(name: string, ifSilentSince: number): Promise<void> {
      await db
        .deleteFrom('nodes')
        .where('name', '=', name)
        .where('last_seen_at', '<', ifSilentSince)
        .execute();
    },
  };
}

export type NodesRepo = ReturnType<typeof nodesRepo>;
