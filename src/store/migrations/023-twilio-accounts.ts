import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// A workspace's own Twilio account (docs/twilio.md): its calls on `twilio` numbers go through it
// instead of the server's (PARLEY_TWILIO_*), so each subaccount can use its own. The auth token is
// a secret Parley must use (to call Twilio and check its signatures), so it is kept as given and
// never read back through the API.
export function twilioAccounts(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('twilio_accounts')
        .addColumn('workspace_id', 'text', (c) => c.primaryKey())
        .addColumn('account_sid', 'text', (c) => c.notNull())
        .addColumn('auth_token', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('twilio_accounts_account')
        .on('twilio_accounts')
        .column('account_sid')
        .execute();
    },
  };
}
