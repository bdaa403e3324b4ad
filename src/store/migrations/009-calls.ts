import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Calls: one row per call, from `pending` (or `registered` for an inbound call being routed) to
// a final status. `holds_slot` marks the calls that count against the workspace's
// max_concurrent_calls, so every process sees the same count. Waiting calls are read in order
// through a partial index.
export function calls(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('calls'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('end_call_reason', 'text')
        .addColumn('custom_end_call_reason', 'text')
        .addColumn('error_message', 'text')
        .addColumn('phone_from', 'text', (c) => c.notNull())
        .addColumn('phone_to', 'text', (c) => c.notNull())
        .addColumn('lead_name', 'text', (c) => c.notNull())
        .addColumn('lead_email', 'text')
        .addColumn('lead_timezone', 'text')
        .addColumn('variables', t.json, (c) => c.notNull())
        .addColumn('metadata', t.json, (c) => c.notNull())
        .addColumn('settings', t.json, (c) => c.notNull())
        .addColumn('webhook_url', 'text')
        .addColumn('batch_call_id', 'text')
        .addColumn('batch_task_id', 'text')
        .addColumn('state', t.json)
        .addColumn('analysis', t.json)
        .addColumn('quality', t.json)
        .addColumn('transcript', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('call_sid', 'text')
        .addColumn('node', 'text')
        .addColumn('holds_slot', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('ringing_at', t.bigint)
        .addColumn('answered_at', t.bigint)
        .addColumn('ended_at', t.bigint)
        .addColumn('duration_seconds', 'integer')
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('calls_agent')
        .on('calls')
        .columns(['workspace_id', 'agent_id', 'seq'])
        .execute();
      await db.schema.createIndex('calls_lead').on('calls').columns(['workspace_id', 'phone_to']).execute();
      await db.schema
        .createIndex('calls_lead_from')
        .on('calls')
        .columns(['workspace_id', 'phone_from'])
        .execute();
      await db.schema
        .createIndex('calls_batch')
        .on('calls')
        .columns(['workspace_id', 'batch_call_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('calls_waiting')
        .on('calls')
        .columns(['workspace_id', 'seq'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      await db.schema
        .createIndex('calls_busy')
        .on('calls')
        .columns(['workspace_id'])
        .where(sql.ref('holds_slot'), '=', 1)
        .execute();
    },
  };
}
