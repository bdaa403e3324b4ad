import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database, DialectName } from '../database.ts';
import { initial } from './001-initial.ts';

// Migrations are imported statically (no directory scanning) and applied in name order. They are
// additive: a released migration is never edited, a change is a new one.
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001-initial': initial(dialect),
  };
}

export interface MigrationReport {
  applied: string[];
}

export async function migrateToLatest(database: Database): Promise<MigrationReport> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database.dialect) };
  const migrator = new Migrator({ db: database.db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

export async function pendingMigrations(database: Database): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database.dialect) };
  const migrator = new Migrator({ db: database.db, provider });
  const list = await migrator.getMigrations();
  return list.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
