import type { Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';

// What the parts of a repository split across files share: the handle, the clock, the dialect and
// the way to run several statements atomically.

/** Runs a multi-statement write atomically: a new transaction, or the one already open. */
export type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

export interface RepoContext {
  /** The root handle, or the open transaction (`Store.transaction`). */
  db: Db;
  clock: Clock;
  /** Picks the SQL of the queries that differ between SQLite and PostgreSQL. */
  dialect: DialectName;
  transact: Transact;
}
