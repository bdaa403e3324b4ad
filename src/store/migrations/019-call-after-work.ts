import { sql, type Kysely, type Migration } from 'kysely';

// A call whose line is free reads as final at once; its after-the-call work (post-call actions,
// the analysis, the usage and the post-call webhook) follows. `after_call` marks the calls still
// waiting for that work, so that a node taking over a silent one can finish them (their webhook
// must not be lost with the node).
export function callAfterWork(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('calls')
        .addColumn('after_call', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('calls_after_call')
        .on('calls')
        .columns(['node'])
        .where(sql.ref('after_call'), '=', 1)
        .execute();
    },
  };
}
