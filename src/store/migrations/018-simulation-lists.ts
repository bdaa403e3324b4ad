import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Workspace-wide lists of simulations and sessions (`GET /v2/simulations`,
// `GET /v2/simulations/sessions`), newest first, and the custom variables a simulation started
// alone (`POST /v2/simulations`) runs with (null for the simulations of a suite's execution).
export function simulationLists(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('simulations').addColumn('custom_variables', t.json).execute();
      await db.schema
        .createIndex('simulations_workspace')
        .on('simulations')
        .columns(['workspace_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('simulation_sessions_model')
        .on('simulation_sessions')
        .columns(['workspace_id', 'model_id', 'seq'])
        .execute();
    },
  };
}
