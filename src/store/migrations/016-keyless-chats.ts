import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';

// Keyless (widget) access reaches only chats opened keylessly, so the store remembers how each
// chat was opened. Chats from before this migration count as opened with a key: they can no longer
// be reached without one. Also an index for listing a workspace's calls across its agents.
export function keylessChats(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('chats')
        .addColumn('opened_without_key', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('calls_workspace').on('calls').columns(['workspace_id', 'seq']).execute();
    },
  };
}
