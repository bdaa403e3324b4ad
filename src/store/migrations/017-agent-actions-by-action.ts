import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Per-attachment settings of the published attach body (`items`): when the action runs for that
// agent (`before`, `during`, `after`), the agent's own "when to use it" condition, and how the
// action's input variables are filled for that agent. Rows from before this migration read as
// `during`, no condition, no mapping: what plain attachments always meant. Reads of an action's
// agents (`include_assistants`) go by action: `agent_actions_action` (005) serves them, as action
// ids are unique, so no further index is added.
export function agentActionsByAction(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('agent_actions')
        .addColumn('attachment_type', 'text', (c) => c.notNull().defaultTo('during'))
        .execute();
      await db.schema.alterTable('agent_actions').addColumn('trigger_condition', 'text').execute();
      await db.schema.alterTable('agent_actions').addColumn('input_variables_mapping', t.json).execute();
    },
  };
}
