import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Published agent versions: immutable snapshots of an agent's draft (its config, its attached
// actions as they were, its knowledge base attachments), numbered 1..n per agent. The agent row
// names its live version (null: never published, the draft is live). Calls, chats and simulation
// sessions record the version they run (null: the draft).
export function agentVersions(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('agent_versions'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('snapshot', t.json, (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      // Lists go newest first by number; the number is unique per agent (also guards publishes).
      await db.schema
        .createIndex('agent_versions_agent_number')
        .on('agent_versions')
        .columns(['workspace_id', 'agent_id', 'number'])
        .unique()
        .execute();
      await db.schema.alterTable('agents').addColumn('live_version_id', 'text').execute();
      await db.schema.alterTable('calls').addColumn('agent_version_id', 'text').execute();
      await db.schema.alterTable('chats').addColumn('agent_version_id', 'text').execute();
      await db.schema.alterTable('simulation_sessions').addColumn('agent_version_id', 'text').execute();
    },
  };
}
