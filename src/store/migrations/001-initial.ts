import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Workspaces, API keys, agents, phone numbers and their attachments.
export function initial(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('parley_meta')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await t
        .seq(db.schema.createTable('workspaces'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('parent_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('max_concurrent_calls', 'integer', (c) => c.notNull())
        .addColumn('calls_per_second', t.real)
        .addColumn('webhook_secret', 'text', (c) => c.notNull())
        .addColumn('include_timeline_in_webhook', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('default_agent_id', 'text')
        .addColumn('usage_seconds', t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('deleted_at', t.bigint)
        .execute();
      await db.schema
        .createIndex('workspaces_parent')
        .on('workspaces')
        .columns(['parent_id', 'seq'])
        .execute();

      await t
        .seq(db.schema.createTable('api_keys'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('api_keys_workspace')
        .on('api_keys')
        .columns(['workspace_id', 'seq'])
        .execute();

      await t
        .seq(db.schema.createTable('agents'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('spec', t.json, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('agents_workspace').on('agents').columns(['workspace_id', 'seq']).execute();

      await t
        .seq(db.schema.createTable('phone_numbers'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('number', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('sip', t.json)
        .addColumn('default_agent_id', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addUniqueConstraint('phone_numbers_workspace_number', ['workspace_id', 'number'])
        .execute();
      await db.schema
        .createIndex('phone_numbers_workspace')
        .on('phone_numbers')
        .columns(['workspace_id', 'seq'])
        .execute();

      await db.schema
        .createTable('agent_phone_numbers')
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('phone_number_id', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('agent_phone_numbers_pk', ['agent_id', 'phone_number_id'])
        .execute();
      await db.schema
        .createIndex('agent_phone_numbers_number')
        .on('agent_phone_numbers')
        .column('phone_number_id')
        .execute();
    },
  };
}
