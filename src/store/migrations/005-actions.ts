import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Actions (tools an agent can use: booking, extraction, transfer, SMS, WhatsApp, HTTP) and their
// attachments to agents. `config` is the kind's object as the API accepts it.
export function actions(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('actions'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('config', t.json, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('actions_workspace')
        .on('actions')
        .columns(['workspace_id', 'seq'])
        .execute();

      await db.schema
        .createTable('agent_actions')
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('action_id', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('agent_actions_pk', ['agent_id', 'action_id'])
        .execute();
      await db.schema.createIndex('agent_actions_action').on('agent_actions').column('action_id').execute();
    },
  };
}
