import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// The processes running calls: each writes `last_seen_at` every few seconds, so the others can
// tell when one has died and take over what it left (its calls fail, its claims are returned).
export function nodes(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('nodes'))
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('started_at', t.bigint, (c) => c.notNull())
        .addColumn('last_seen_at', t.bigint, (c) => c.notNull())
        .execute();
    },
  };
}
