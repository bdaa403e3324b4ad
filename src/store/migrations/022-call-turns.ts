import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// What was said in a running call, turn by turn, written as the call goes (docs/durability.md):
// a node that dies mid-call leaves here the turns completed so far, and the node that takes its
// calls over puts them in the record's transcript. A call's rows go once its last move is made
// (the record then holds the whole transcript).
export function callTurns(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('call_turns')
        .addColumn('call_id', 'text', (c) => c.notNull())
        /** 0, 1, 2...: the turn's place in the transcript. */
        .addColumn('turn', 'integer', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('speaker', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('at', t.bigint, (c) => c.notNull())
        .addColumn('interrupted', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('call_turns_pk', ['call_id', 'turn'])
        .execute();
    },
  };
}
