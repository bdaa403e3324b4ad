import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { systemClock, type Clock } from '../../core/index.ts';
import { createStore, type Store, type StoreLimits } from '../store.ts';
import type { DialectName } from '../database.ts';

// The store's test targets: every contract suite runs once per dialect. SQLite always runs, in a
// fresh file; PostgreSQL runs when PARLEY_TEST_DATABASE_URL is set, in a fresh schema per store
// that is dropped afterwards.

export interface StoreTarget {
  dialect: DialectName;
  /** A new, migrated, empty store. */
  open(clock?: Clock, limits?: StoreLimits): Promise<Store>;
}

export const TEST_DATABASE_URL = process.env.PARLEY_TEST_DATABASE_URL || undefined;

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

function withCleanup(store: Store, cleanup: () => Promise<void> | void): Store {
  const close = store.close;
  return Object.assign(store, {
    close: async () => {
      await close();
      await cleanup();
    },
  });
}

/** Migrates the store; when that fails, closes it (removing its database) before rethrowing. */
async function migrated(store: Store): Promise<Store> {
  try {
    await store.migrate();
    return store;
  } catch (err) {
    await store.close();
    throw err;
  }
}

export const sqliteTarget: StoreTarget = {
  dialect: 'sqlite',
  async open(clock = systemClock, limits = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'parley-store-'));
    const store = await createStore({ dialect: 'sqlite', file: join(dir, 'parley.db') }, clock, limits);
    return migrated(withCleanup(store, () => rmSync(dir, { recursive: true, force: true })));
  },
};

export function postgresTarget(url: string): StoreTarget {
  return {
    dialect: 'postgres',
    async open(clock = systemClock, limits = {}) {
      const schema = `parley_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
      const store = await createStore({ dialect: 'postgres', url, schema, poolSize: 4 }, clock, limits);
      return migrated(withCleanup(store, () => dropSchema(url, schema)));
    },
  };
}

/**
 * SQLite, plus PostgreSQL when PARLEY_TEST_DATABASE_URL is set; test/global-setup.ts prints the
 * one line that says PostgreSQL was skipped.
 */
export function storeTargets(): StoreTarget[] {
  return TEST_DATABASE_URL ? [sqliteTarget, postgresTarget(TEST_DATABASE_URL)] : [sqliteTarget];
}
export {
  createMemoryRecordings,
  runRecordingStorageContract,
  type RecordingStorageSubject,
} from './recordings.ts';
