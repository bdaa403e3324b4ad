import type { Clock } from '../core/index.ts';
import type { Db } from './database.ts';

// Workspaces' own Twilio accounts (migration 023), and who holds a `twilio` number: the carrier
// finds the workspace of an incoming call by the number and the account Twilio names.

export interface TwilioAccountRecord {
  workspaceId: string;
  accountSid: string;
  authToken: string;
  updatedAt: number;
}

/** A workspace holding a `twilio` number, with its own account SID (null: it uses the server's). */
export interface TwilioNumberHolder {
  workspaceId: string;
  accountSid: string | null;
}

export function twilioAccountsRepo(db: Db, clock: Clock) {
  const toRecord = (row: {
    workspace_id: string;
    account_sid: string;
    auth_token: string;
    updated_at: number;
  }): TwilioAccountRecord => ({
    workspaceId: row.workspace_id,
    accountSid: row.account_sid,
    authToken: row.auth_token,
    updatedAt: Number(row.updated_at),
  });
  return {
    async get(workspaceId: string): Promise<TwilioAccountRecord | null> {
      const row = await db
        .selectFrom('twilio_accounts')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
    /** Sets (or replaces) the workspace's account. */
    async set(
      workspaceId: string,
      account: { accountSid: string; authToken: string },
    ): Promise<TwilioAccountRecord> {
      const now = clock.now();
      await db
        .insertInto('twilio_accounts')
        .values({
          workspace_id: workspaceId,
          account_sid: account.accountSid,
          auth_token: account.authToken,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.column('workspace_id').doUpdateSet({
            account_sid: account.accountSid,
            auth_token: account.authToken,
            updated_at: now,
          }),
        )
        .execute();
      return { workspaceId, ...account, updatedAt: now };
    },
    /** Removes the workspace's account; false when it had none. */
    async remove(workspaceId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('twilio_accounts')
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** An account some workspace holds, by its SID (its token is the same wherever it is held). */
    async byAccountSid(accountSid: string): Promise<TwilioAccountRecord | null> {
      const row = await db
        .selectFrom('twilio_accounts')
        .selectAll()
        .where('account_sid', '=', accountSid)
        .orderBy('updated_at', 'desc')
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },
    /** The workspaces holding `number` (E.164) as a `twilio` number. */
    async holdersOf(number: string): Promise<TwilioNumberHolder[]> {
      const rows = await db
        .selectFrom('phone_numbers')
        .leftJoin('twilio_accounts', 'twilio_accounts.workspace_id', 'phone_numbers.workspace_id')
        .select(['phone_numbers.workspace_id as workspace_id', 'twilio_accounts.account_sid as account_sid'])
        .where('phone_numbers.number', '=', number)
        .where('phone_numbers.provider', '=', 'twilio')
        .execute();
      return rows.map((row) => ({ workspaceId: row.workspace_id, accountSid: row.account_sid ?? null }));
    },
  };
}
