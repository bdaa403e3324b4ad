import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Calls across nodes (docs/ws-media.md, "Several nodes"): each node says where clients reach it
// and whether it takes WebSocket media calls; a WS media session started on one node for another
// is handed over here, and the named node reads it when its client binds or its call is dialed.
export function wsMediaNodes(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('nodes')
        .addColumn('public_url', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('nodes')
        .addColumn('ws_media', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('ws_media_sessions')
        .addColumn('sid', 'text', (c) => c.primaryKey())
        .addColumn('call_id', 'text', (c) => c.notNull())
        .addColumn('node', 'text', (c) => c.notNull())
        .addColumn('codec', 'text', (c) => c.notNull())
        .addColumn('framing', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('ws_media_sessions_call')
        .on('ws_media_sessions')
        .column('call_id')
        .execute();
      await db.schema
        .createIndex('ws_media_sessions_expiry')
        .on('ws_media_sessions')
        .column('expires_at')
        .execute();
    },
  };
}
