import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// The builtin calendar (REAL_TIME_BOOKING): an agent's weekly working hours and its bookings.
// One booking per agent and start time, so a double booking is refused by the database.
export function calendar(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('calendar_hours'))
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('weekday', 'integer', (c) => c.notNull())
        .addColumn('start_minute', 'integer', (c) => c.notNull())
        .addColumn('end_minute', 'integer', (c) => c.notNull())
        .addColumn('time_zone', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('calendar_hours_agent')
        .on('calendar_hours')
        .columns(['workspace_id', 'agent_id'])
        .execute();

      await t
        .seq(db.schema.createTable('calendar_bookings'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('start_at', t.bigint, (c) => c.notNull())
        .addColumn('end_at', t.bigint, (c) => c.notNull())
        .addColumn('attendee_name', 'text', (c) => c.notNull())
        .addColumn('attendee_email', 'text', (c) => c.notNull())
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addUniqueConstraint('calendar_bookings_slot', ['agent_id', 'start_at'])
        .execute();
      await db.schema
        .createIndex('calendar_bookings_range')
        .on('calendar_bookings')
        .columns(['workspace_id', 'agent_id', 'start_at'])
        .execute();
    },
  };
}
