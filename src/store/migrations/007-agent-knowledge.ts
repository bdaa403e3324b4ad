import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Which knowledge base an agent consults: at most one per agent (the agent read's singular
// `knowledge_base_id`), so the agent is the key and attaching another base replaces it.
export function agentKnowledge(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agent_knowledge')
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull().primaryKey())
        .addColumn('knowledge_base_id', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('agent_knowledge_base')
        .on('agent_knowledge')
        .columns(['workspace_id', 'knowledge_base_id'])
        .execute();
    },
  };
}
