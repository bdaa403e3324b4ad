import { sql, type Kysely, type Migration } from 'kysely';

// Indexes for the call list's filters (the console's calls page, GET /v2/calls): by status, by the
// start (`from_date` reads coalesce(ringing_at, answered_at)) and by the end (`to_date`). Without
// them a filter and its total read every call of the workspace (bench/RESULTS.md, case console).
export function callListIndexes(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('calls_status')
        .on('calls')
        .columns(['workspace_id', 'status', 'seq'])
        .execute();
      await sql`create index calls_started on calls (workspace_id, (coalesce(ringing_at, answered_at)))`.execute(
        db,
      );
      await db.schema.createIndex('calls_ended').on('calls').columns(['workspace_id', 'ended_at']).execute();
    },
  };
}
