import type { Clock } from '../core/index.ts';
import type { Db } from './database.ts';

// WebSocket media sessions handed from the node that started a call to the node that runs it
// (migration 021). The named node reads one when its client binds or its call is dialed.

export interface WsMediaSessionRecord {
  sid: string;
  callId: string;
  /** The node that runs the call and accepts the bind. */
  node: string;
  codec: string;
  framing: string;
  expiresAt: number;
}

/** Sessions are kept this long past their expiry (a late bind is told "expired", then forgotten). */
const KEEP_EXPIRED_MS = 24 * 3_600_000;

export function wsMediaSessionsRepo(db: Db, clock: Clock) {
  const toRecord = (row: {
    sid: string;
    call_id: string;
    node: string;
    codec: string;
    framing: string;
    expires_at: number;
  }): WsMediaSessionRecord => ({
    sid: row.sid,
    callId: row.call_id,
    node: row.node,
    codec: row.codec,
    framing: row.framing,
    expiresAt: Number(row.expires_at),
  });
  return {
    async create(session: WsMediaSessionRecord): Promise<void> {
      await db
        .deleteFrom('ws_media_sessions')
        .where('expires_at', '<', clock.now() - KEEP_EXPIRED_MS)
        .execute();
      await db
        .insertInto('ws_media_sessions')
        .values({
          sid: session.sid,
          call_id: session.callId,
          node: session.node,
          codec: session.codec,
          framing: session.framing,
          expires_at: session.expiresAt,
        })
        .execute();
    },
    async get(sid: string): Promise<WsMediaSessionRecord | null> {
      const row = await db
        .selectFrom('ws_media_sessions')
        .selectAll()
        .where('sid', '=', sid)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
    async ofCall(callId: string): Promise<WsMediaSessionRecord | null> {
      const row = await db
        .selectFrom('ws_media_sessions')
        .selectAll()
        .where('call_id', '=', callId)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
  };
}

export type WsMediaSessionsRepo = ReturnType<typeof wsMediaSessionsRepo>;
