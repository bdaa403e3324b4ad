import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// SIP trunk registration (docs/sip.md): the last state a node reported for a number whose trunk
// asks to be registered with, shown on the number's read; numbers are looked up by their E.164
// value when a SIP call comes in for one.
export function sipRegistrations(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sip_registrations')
        .addColumn('number_id', 'text', (c) => c.primaryKey())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('expires_at', t.bigint)
        .addColumn('retry_at', t.bigint)
        .addColumn('node', 'text', (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('phone_numbers_number').on('phone_numbers').column('number').execute();
    },
  };
}
