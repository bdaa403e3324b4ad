import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Contacts (the workspace's address book, `/v2/contacts`) and the indexes `GET /v2/analytics`
// reads calls through.
//
// A contact's number is kept in E.164 and searched through `(workspace_id, phone_number)`; its
// name is kept lowercased beside itself (`name_folded`, as the simulations do) so that a name
// search behaves the same on both dialects. Everything else a client sends about a contact is
// the `metadata` JSON column. Analytics aggregates a workspace's calls over a range of
// `created_at`, for all agents or one: two indexes serve those ranges.
export function contacts(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('contacts'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_folded', 'text', (c) => c.notNull())
        .addColumn('phone_number', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('metadata', t.json, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('contacts_workspace')
        .on('contacts')
        .columns(['workspace_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('contacts_phone')
        .on('contacts')
        .columns(['workspace_id', 'phone_number'])
        .execute();

      await db.schema
        .createIndex('calls_created')
        .on('calls')
        .columns(['workspace_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('calls_agent_created')
        .on('calls')
        .columns(['workspace_id', 'agent_id', 'created_at'])
        .execute();
    },
  };
}
