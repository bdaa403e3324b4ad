import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase, type Transaction } from 'kysely';
import pg from 'pg';
import { coalescePerKey } from '../core/index.ts';
import { SchemaScopedPostgresDialect } from './introspector.ts';
import { directReaders, type DirectReader } from './precompiled.ts';
import type { Schema } from './schema.ts';

export type DialectName = 'sqlite' | 'postgres';

export type DatabaseOptions =
  | { dialect: 'sqlite'; file: string }
  | {
      dialect: 'postgres';
      url: string;
      /** Schema to use instead of `public` (created if missing); tests use a fresh one per run. */
      schema?: string;
      poolSize?: number;
    };

export type Db = Kysely<Schema> | Transaction<Schema>;

export interface Database {
  readonly dialect: DialectName;
  readonly db: Kysely<Schema>;
  /**
   * Runs `fn` in one transaction. On SQLite it takes the write lock at BEGIN (BEGIN IMMEDIATE) so
   * that another process writing the same file (the CLI while the server runs) waits on the busy
   * timeout instead of failing half-way through a read-then-write.
   */
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T>;
  /** Wake-ups between processes sharing the database (see `Signals`). */
  readonly signals: Signals;
  close(): Promise<void>;
}

/**
 * Signals between processes: PostgreSQL's LISTEN/NOTIFY, scoped to the store's schema (several
 * stores may share one database). The embedded store is one process's: signals do nothing, and
 * in-process wake-ups cover it.
 */
export interface Signals {
  notify(channel: string): Promise<void>;
  /** Calls `onSignal` for every notification on `channel` until `signal` aborts. */
  listen(channel: string, onSignal: () => void, signal: AbortSignal): Promise<void>;
}

const noSignals: Signals = { notify: async () => undefined, listen: async () => undefined };

const INT8_OID = 20;
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a
 * small indexed query. Statements are keyed by their SQL text and reused, least recently used
 * first out (queries with IN-lists of varying length make distinct texts, hence the bound).
 */
function cachedStatements(sqlite: BetterSqlite3.Database): SqliteDatabase & { read: DirectReader } {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    read(text, parameters) {
      if (sqlite.inTransaction) return undefined;
      return (this.prepare(text) as unknown as BetterSqlite3.Statement).all(...parameters);
    },
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(text: string) {
      let statement = cache.get(text);
      if (statement) {
        cache.delete(text);
      } else {
        statement = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
      }
      cache.set(text, statement);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}

function openSqlite(file: string): Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // The planner's statistics (ANALYZE), refreshed as SQLite advises for long-lived connections:
  // at open and every hour, within a bounded number of rows so it stays a few milliseconds.
  // Without them a filter can pick a full index scan over two better ones (the calls' lead number).
  sqlite.pragma('optimize = 0x10002');
  const optimizing = setInterval(() => sqlite.pragma('optimize'), OPTIMIZE_EVERY_MS);
  optimizing.unref();
  const statements = cachedStatements(sqlite);
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: statements }) });
  directReaders.set(db, (text, parameters) => statements.read(text, parameters));
  return {
    dialect: 'sqlite',
    db,
    async transaction(fn) {
      // One connection: Kysely's SQLite driver serializes all queries on it, so holding it for the
      // whole function keeps other requests out of the transaction.
      return db.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const result = await fn(conn as unknown as Transaction<Schema>);
          await sql`commit`.execute(conn);
          return result;
        } catch (err) {
          await sql`rollback`.execute(conn);
          throw err;
        }
      });
    },
    signals: noSignals,
    close: () => {
      clearInterval(optimizing);
      return db.destroy();
    },
  };
}

const OPTIMIZE_EVERY_MS = 3_600_000;

function openPostgres(options: Extract<DatabaseOptions, { dialect: 'postgres' }>): Database {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    ...(options.schema ? { options: `-c search_path=${quoteIdent(options.schema)}` } : {}),
    // Times and counters are bigint columns; they fit in a JS number, so read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as never,
    },
  });
  // An idle connection the server closed (a restart, a terminated backend) is reported on the
  // pool, which drops it and connects anew for the next query; unheard, it would end the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Schema>({ dialect: new SchemaScopedPostgresDialect({ pool }) });
  const scoped = (channel: string) => `parley_${options.schema ?? 'public'}_${channel}`.slice(0, 63);
  const listeners = new Set<pg.Client>();
  const notifications = coalescePerKey(async (channel: string) => {
    await sql`select pg_notify(${scoped(channel)}, '')`.execute(db);
  });
  const signals: Signals = {
    // Coalesced: while a NOTIFY is on its way, further ones for the channel become one sent after
    // it. A listener only needs to learn that something happened since it last looked, and a
    // burst of call ends would otherwise take a pool connection each.
    notify: (channel) => notifications.run(channel),
    async listen(channel, onSignal, signal) {
      // One connection per listener; it is closed when `signal` aborts or the store closes.
      const client = new pg.Client({ connectionString: options.url });
      client.on('error', () => undefined); // a dropped connection only ends the wake-ups
      await client.connect();
      listeners.add(client);
      client.on('notification', () => onSignal());
      await client.query(`listen ${quoteIdent(scoped(channel))}`);
      signal.addEventListener(
        'abort',
        () => {
          listeners.delete(client);
          void client.end().catch(() => undefined);
        },
        { once: true },
      );
    },
  };
  return {
    dialect: 'postgres',
    db,
    transaction: (fn) => db.transaction().execute((trx) => fn(trx)),
    signals,
    close: async () => {
      await Promise.all([...listeners].map((c) => c.end().catch(() => undefined)));
      listeners.clear();
      await db.destroy();
    },
  };
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid schema name: ${name}`);
  return name;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.dialect === 'sqlite') return openSqlite(options.file);
  if (options.schema) {
    const admin = new pg.Client({ connectionString: options.url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists ${quoteIdent(options.schema)}`);
    } finally {
      await admin.end();
    }
  }
  return openPostgres(options);
}
