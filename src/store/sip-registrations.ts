import type { Clock } from '../core/index.ts';
import type { Db } from './database.ts';

// Each SIP number's registration with its trunk as a node last reported it (migration 024): one
// row per number, the latest report wins; the number's read shows it.

export type SipRegistrationStateName = 'registering' | 'registered' | 'failed';

export interface SipRegistrationRecord {
  numberId: string;
  state: SipRegistrationStateName;
  /** Why the last attempt failed (`failed` only). */
  error: string | null;
  /** When the registrar's binding runs out (`registered` only). */
  expiresAt: number | null;
  /** When the next attempt is due (`failed` only). */
  retryAt: number | null;
  node: string;
  updatedAt: number;
}

const STATES: readonly string[] = ['registering', 'registered', 'failed'];

export function sipRegistrationsRepo(db: Db, clock: Clock) {
  return {
    async save(record: Omit<SipRegistrationRecord, 'updatedAt'>): Promise<void> {
      const values = {
        state: record.state,
        error: record.error,
        expires_at: record.expiresAt,
        retry_at: record.retryAt,
        node: record.node,
        updated_at: clock.now(),
      };
      await db
        .insertInto('sip_registrations')
        .values({ number_id: record.numberId, ...values })
        .onConflict((oc) => oc.column('number_id').doUpdateSet(values))
        .execute();
    },

    /** The states of `numberIds` that have one. */
    async of(numberIds: string[]): Promise<Map<string, SipRegistrationRecord>> {
      if (numberIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('sip_registrations')
        .selectAll()
        .where('number_id', 'in', numberIds)
        .execute();
      return new Map(
        rows.map((row) => [
          row.number_id,
          {
            numberId: row.number_id,
            state: (STATES.includes(row.state) ? row.state : 'failed') as SipRegistrationStateName,
            error: row.error,
            expiresAt: row.expires_at === null ? null : Number(row.expires_at),
            retryAt: row.retry_at === null ? null : Number(row.retry_at),
            node: row.node,
            updatedAt: Number(row.updated_at),
          },
        ]),
      );
    },

    async delete(numberId: string): Promise<void> {
      await db.deleteFrom('sip_registrations').where('number_id', '=', numberId).execute();
    },
  };
}
