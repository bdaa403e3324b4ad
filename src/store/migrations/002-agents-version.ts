import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// A per-workspace counter bumped with every change to its agents or their numbers, so readers can
// tell whether what they cached is still current with one primary-key lookup.
export function agentsVersion(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('workspaces')
        .addColumn('agents_version', t.bigint, (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
