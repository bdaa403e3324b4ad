import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Webhooks (WIRE.md section 9): the outbox of deliveries, one log row per attempt, and the
// workspace's previous signing secret, still used for 24 h after a rotation.
//
// The payload is kept as text on both dialects (not jsonb, which would reorder keys and change
// whitespace): every retry sends exactly the bytes that were signed the first time.
export function webhooks(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('workspaces').addColumn('previous_webhook_secret', 'text').execute();
      await db.schema
        .alterTable('workspaces')
        .addColumn('previous_webhook_secret_expires_at', t.bigint)
        .execute();

      await t
        .seq(db.schema.createTable('webhook_deliveries'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('call_id', 'text')
        .addColumn('assistant_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', t.bigint, (c) => c.notNull())
        // Set while a worker holds the row; a claim whose lease ran out is taken again.
        .addColumn('lease_token', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      // Claiming: pending rows by due time (small: finished rows leave the index).
      await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, seq) where status = 'pending'`.execute(
        db,
      );

      await t
        .seq(db.schema.createTable('webhook_logs'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('delivery_id', 'text')
        .addColumn('webhook_type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('call_id', 'text')
        .addColumn('assistant_id', 'text')
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('request_headers', t.json, (c) => c.notNull())
        .addColumn('request_body', 'text', (c) => c.notNull())
        .addColumn('response_status_code', 'integer')
        .addColumn('response_headers', t.json)
        .addColumn('response_body', 'text')
        .addColumn('attempt_number', 'integer', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_logs_workspace')
        .on('webhook_logs')
        .columns(['workspace_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('webhook_logs_call')
        .on('webhook_logs')
        .columns(['workspace_id', 'call_id'])
        .execute();
      await db.schema.createIndex('webhook_logs_delivery').on('webhook_logs').column('delivery_id').execute();
    },
  };
}
