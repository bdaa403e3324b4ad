import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Campaigns: a batch row with its counters (kept in the same transaction as every status change,
// never computed by scanning) and one row per recipient. `position` is the recipient's dense
// index in its batch (0, 1, 2...), so a page at any offset of the unfiltered list is a range read.
// The partial index on queued recipients is what keeps claims fast on PostgreSQL (db-bench.md).
export function batches(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('batches'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('from_phone_number', 'text', (c) => c.notNull())
        .addColumn('from_provider', 'text', (c) => c.notNull())
        .addColumn('trigger_at', t.bigint)
        .addColumn('reserved_concurrency', 'integer', (c) => c.notNull())
        .addColumn('call_time_window', t.json)
        .addColumn('total_task_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('pending_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('dispatched_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failed_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('canceled_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('calls_ended_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_dispatch_at', t.bigint)
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addColumn('expires_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('batches_workspace')
        .on('batches')
        .columns(['workspace_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('batches_active')
        .on('batches')
        .columns(['workspace_id', 'seq'])
        .where(sql.ref('status'), 'in', sql`('scheduled', 'in_progress')`)
        .execute();

      await t
        .seq(db.schema.createTable('batch_tasks'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('batch_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('client_id', 'text')
        .addColumn('to_phone_number', 'text', (c) => c.notNull())
        .addColumn('lead_name', 'text')
        .addColumn('lead_email', 'text')
        .addColumn('custom_variables', t.json)
        .addColumn('override_model_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error_message', 'text')
        .addColumn('call_id', 'text')
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_at', t.bigint)
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .addUniqueConstraint('batch_tasks_position', ['batch_id', 'position'])
        .execute();
      await db.schema
        .createIndex('batch_tasks_queued')
        .on('batch_tasks')
        .columns(['batch_id', 'position'])
        .where(sql.ref('status'), '=', 'queued')
        .execute();
      await db.schema
        .createIndex('batch_tasks_status')
        .on('batch_tasks')
        .columns(['batch_id', 'status', 'position'])
        .execute();
      // At most one call per recipient, whatever happens: the database refuses a second.
      await db.schema
        .createIndex('calls_batch_task')
        .on('calls')
        .column('batch_task_id')
        .unique()
        .where(sql.ref('batch_task_id'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('batch_tasks_claimed')
        .on('batch_tasks')
        .columns(['claimed_by'])
        .where(sql.ref('status'), '=', 'claimed')
        .execute();
    },
  };
}
