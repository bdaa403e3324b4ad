import type { Clock } from '../core/index.ts';
import type { Db } from './database.ts';

// Liveness of the processes that run calls and campaigns (see migrations 013 and 021).

/** What a node tells the others about itself with each heartbeat. */
export interface NodeAbout {
  /** Where clients reach it (PARLEY_PUBLIC_URL). */
  publicUrl: string;
  /** It runs WebSocket media calls. */
  wsMedia: boolean;
}

export interface NodeInfo extends NodeAbout {
  name: string;
  lastSeenAt: number;
}

export function nodesRepo(db: Db, clock: Clock) {
  return {
    /** Records that `name` is alive now, and what it says about itself. */
    async heartbeat(name: string, about: NodeAbout = { publicUrl: '', wsMedia: false }): Promise<void> {
      const now = clock.now();
      const said = { public_url: about.publicUrl, ws_media: about.wsMedia ? 1 : 0 };
      await db
        .insertInto('nodes')
        .values({ name, started_at: now, last_seen_at: now, ...said })
        .onConflict((oc) => oc.column('name').doUpdateSet({ last_seen_at: now, ...said }))
        .execute();
    },
    /** The node named `name`, null when none ever said so (or it was taken over). */
    async get(name: string): Promise<NodeInfo | null> {
      const row = await db
        .selectFrom('nodes')
        .select(['name', 'last_seen_at', 'public_url', 'ws_media'])
        .where('name', '=', name)
        .executeTakeFirst();
      return row
        ? {
            name: row.name,
            lastSeenAt: Number(row.last_seen_at),
            publicUrl: row.public_url,
            wsMedia: row.ws_media === 1,
          }
        : null;
    },
    /** The node taking WebSocket media calls seen most recently at or after `since`, if any. */
    async freshestWsMedia(since: number): Promise<NodeInfo | null> {
      const row = await db
        .selectFrom('nodes')
        .select('name')
        .where('ws_media', '=', 1)
        .where('last_seen_at', '>=', since)
        .orderBy('last_seen_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? this.get(row.name) : null;
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
