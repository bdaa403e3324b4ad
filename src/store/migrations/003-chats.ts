import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Chats: one row per conversation, with the conversation's state (a SessionSnapshot) and a
// version for optimistic concurrency between processes.
export function chats(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('chats'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('metadata', t.json, (c) => c.notNull())
        .addColumn('state', t.json, (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('chats_workspace').on('chats').columns(['workspace_id', 'seq']).execute();
      await db.schema
        .createIndex('chats_workspace_agent')
        .on('chats')
        .columns(['workspace_id', 'agent_id', 'seq'])
        .execute();
    },
  };
}
