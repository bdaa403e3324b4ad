import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';

// What the published number record shows beyond Parley's own fields: a human-readable name and
// the provider name the number was imported with (`twilio`, `zoom`...; null for numbers imported
// with Parley's `provider` alone, whose provider name is derived from it). The SIP trunk details
// of the published body (termination URI, outbound proxy, registration) live in the `sip` JSON.
export function numberDetails(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('phone_numbers')
        .addColumn('friendly_name', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.alterTable('phone_numbers').addColumn('provider_name', 'text').execute();
    },
  };
}
