import { sql } from 'kysely';
import type { Clock } from '../core/index.ts';
import { actionsRepo } from './actions.ts';
import { agentsRepo } from './agents.ts';
import { agentVersionsRepo } from './agent-versions.ts';
import { apiKeysRepo } from './api-keys.ts';
import { calendarRepo } from './calendar.ts';
import { callsRepo } from './calls/repo.ts';
import { callTurnsRepo } from './call-turns.ts';
import { batchesRepo } from './batches/repo.ts';
import { nodesRepo } from './nodes.ts';
import { wsMediaSessionsRepo } from './ws-media-sessions.ts';
import { sipRegistrationsRepo } from './sip-registrations.ts';
import { twilioAccountsRepo } from './twilio-accounts.ts';
import { speechProvidersRepo } from './speech-providers.ts';
import { simulationRunsRepo } from './simulation-runs.ts';
import { chatsRepo } from './chats.ts';
import { knowledgeRepo, type Transact } from './knowledge.ts';
import {
  openDatabase,
  type Database,
  type DatabaseOptions,
  type Db,
  type DialectName,
  type Signals,
} from './database.ts';
import { migrateToLatest, pendingMigrations, type MigrationReport } from './migrations/index.ts';
import { phoneNumbersRepo } from './phone-numbers.ts';
import { simulationsRepo } from './simulations.ts';
import { contactsRepo } from './contacts.ts';
import { analyticsRepo } from './analytics.ts';
import { workspacesRepo } from './workspaces.ts';
import { webhooksRepo } from './webhooks.ts';

/**
 * `dialect` picks the SQL of the few queries that differ (full-text search); `transact` runs a
 * multi-statement write atomically: a new transaction on the root handle, the open one inside
 * `Store.transaction`.
 */
/** Product limits the store enforces; tests lower them to reach the edges cheaply. */
export interface StoreLimits {
  /** Recipients in one batch (default 1,000,000). */
  maxTasksPerBatch?: number;
}

export function repositories(
  db: Db,
  clock: Clock,
  dialect: DialectName,
  transact: Transact = (fn) => fn(db),
  limits: StoreLimits = {},
) {
  return {
    workspaces: workspacesRepo(db, clock),
    apiKeys: apiKeysRepo(db, clock),
    agents: agentsRepo(db, clock),
    agentVersions: agentVersionsRepo(db, clock, transact),
    phoneNumbers: phoneNumbersRepo(db, clock),
    chats: chatsRepo(db, clock),
    actions: actionsRepo(db, clock),
    knowledge: knowledgeRepo(db, clock, dialect, transact),
    calendar: calendarRepo(db, clock, transact),
    webhooks: webhooksRepo(db, clock, dialect, transact),
    calls: callsRepo(db, clock, dialect, transact),
    callTurns: callTurnsRepo(db, transact),
    nodes: nodesRepo(db, clock),
    wsMediaSessions: wsMediaSessionsRepo(db, clock),
    sipRegistrations: sipRegistrationsRepo(db, clock),
    twilioAccounts: twilioAccountsRepo(db, clock),
    speechProviders: speechProvidersRepo(db, clock),
    simulationRuns: simulationRunsRepo(db, clock, transact),
    batches: batchesRepo(db, clock, dialect, transact, limits.maxTasksPerBatch),
    simulations: simulationsRepo(db, clock, dialect, transact),
    contacts: contactsRepo(db, clock, dialect, transact),
    analytics: analyticsRepo(db, dialect),
  };
}

export type Repositories = ReturnType<typeof repositories>;

/** The persistence seam: the same repositories over either dialect. */
export interface Store extends Repositories {
  readonly dialect: DialectName;
  /** Wake-ups between processes (PostgreSQL LISTEN/NOTIFY; nothing on the embedded store). */
  readonly signals: Signals;
  /** Runs `fn` with repositories bound to one transaction. */
  transaction<T>(fn: (repos: Repositories) => Promise<T>): Promise<T>;
  migrate(): Promise<MigrationReport>;
  /** Reachable and fully migrated. */
  isReady(): Promise<boolean>;
  /** Serializes `fn` against every other process using this store (for one-time start-up work). */
  exclusively<T>(name: string, fn: (repos: Repositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function createStore(
  options: DatabaseOptions,
  clock: Clock,
  limits: StoreLimits = {},
): Promise<Store> {
  const database: Database = await openDatabase(options);
  return {
    dialect: database.dialect,
    signals: database.signals,
    ...repositories(database.db, clock, database.dialect, (fn) => database.transaction(fn), limits),
    transaction: (fn) =>
      database.transaction((trx) => fn(repositories(trx, clock, database.dialect, (f) => f(trx), limits))),
    migrate: () => migrateToLatest(database),
    async isReady() {
      try {
        await sql`select 1`.execute(database.db);
        return (await pendingMigrations(database)).length === 0;
      } catch {
        return false;
      }
    },
    exclusively: (name, fn) =>
      database.transaction(async (trx) => {
        // SQLite's BEGIN IMMEDIATE already holds the only write lock; PostgreSQL needs a lock.
        if (database.dialect === 'postgres') {
          await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
        }
        return fn(repositories(trx, clock, database.dialect, (f) => f(trx), limits));
      }),
    close: () => database.close(),
  };
}
