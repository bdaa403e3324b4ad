import { sql, type CreateTableBuilder } from 'kysely';
import type { DialectName } from '../database.ts';

/** The few column types that differ between the two dialects. */
export function columnTypes(dialect: DialectName) {
  const pg = dialect === 'postgres';
  return {
    bigint: pg ? ('bigint' as const) : ('integer' as const),
    real: pg ? ('double precision' as const) : ('real' as const),
    json: pg ? sql`jsonb` : sql`text`,
    /** Adds `seq`, an auto-increasing primary key that gives every table a stable insertion order. */
    seq<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'seq'> {
      return pg
        ? table.addColumn('seq', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
        : table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement());
    },
  };
}
