import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Database, DialectName } from '../database.ts';
import { initial } from './001-initial.ts';
import { agentsVersion } from './002-agents-version.ts';
import { chats } from './003-chats.ts';
import { chatChannels } from './004-chat-channels.ts';
import { actions } from './005-actions.ts';
import { knowledge } from './006-knowledge.ts';
import { agentKnowledge } from './007-agent-knowledge.ts';
import { calendar } from './008-calendar.ts';
import { calls } from './009-calls.ts';
import { webhooks } from './010-webhooks.ts';
import { batches } from './011-batches.ts';
import { simulations } from './012-simulations.ts';
import { nodes } from './013-nodes.ts';
import { contacts } from './014-contacts.ts';
import { numberDetails } from './015-number-details.ts';
import { keylessChats } from './016-keyless-chats.ts';
import { agentActionsByAction } from './017-agent-actions-by-action.ts';
import { simulationLists } from './018-simulation-lists.ts';
import { callAfterWork } from './019-call-after-work.ts';
import { agentVersions } from './020-agent-versions.ts';
import { wsMediaNodes } from './021-ws-media-nodes.ts';
import { callTurns } from './022-call-turns.ts';
import { twilioAccounts } from './023-twilio-accounts.ts';
import { speechProviders } from './025-speech-providers.ts';
import { sipRegistrations } from './024-sip-registrations.ts';
import { callListIndexes } from './026-call-list-indexes.ts';

// Migrations are imported statically (no directory scanning) and applied in name order. They are
// additive: a released migration is never edited, a change is a new one.
function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001-initial': initial(dialect),
    '002-agents-version': agentsVersion(dialect),
    '003-chats': chats(dialect),
    '004-chat-channels': chatChannels(dialect),
    '005-actions': actions(dialect),
    '006-knowledge': knowledge(dialect),
    '007-agent-knowledge': agentKnowledge(dialect),
    '008-calendar': calendar(dialect),
    '009-calls': calls(dialect),
    '010-webhooks': webhooks(dialect),
    '011-batches': batches(dialect),
    '012-simulations': simulations(dialect),
    '013-nodes': nodes(dialect),
    '014-contacts': contacts(dialect),
    '015-number-details': numberDetails(dialect),
    '016-keyless-chats': keylessChats(dialect),
    '017-agent-actions-by-action': agentActionsByAction(dialect),
    '018-simulation-lists': simulationLists(dialect),
    '019-call-after-work': callAfterWork(),
    '020-agent-versions': agentVersions(dialect),
    '021-ws-media-nodes': wsMediaNodes(dialect),
    '022-call-turns': callTurns(dialect),
    '023-twilio-accounts': twilioAccounts(dialect),
    '024-sip-registrations': sipRegistrations(dialect),
    '025-speech-providers': speechProviders(dialect),
    '026-call-list-indexes': callListIndexes(),
  };
}

export interface MigrationReport {
  applied: string[];
}

/**
 * Kysely's migrator looks for its bookkeeping tables in every schema of the database unless told
 * which one to use; on PostgreSQL another store's schema in the same database would then be taken
 * for ours (and a fresh schema would never get its own). Pin it to the schema unqualified tables
 * go to, which is where the migrations create everything else.
 */
async function createMigrator(database: Database): Promise<Migrator> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database.dialect) };
  let migrationTableSchema: string | undefined;
  if (database.dialect === 'postgres') {
    const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(
      database.db,
    );
    migrationTableSchema = rows[0]?.schema ?? undefined;
  }
  return new Migrator({ db: database.db, provider, migrationTableSchema });
}

export async function migrateToLatest(database: Database): Promise<MigrationReport> {
  const migrator = await createMigrator(database);
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

export async function pendingMigrations(database: Database): Promise<string[]> {
  const migrator = await createMigrator(database);
  const list = await migrator.getMigrations();
  return list.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
