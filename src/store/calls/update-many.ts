import { sql, type Selectable } from 'kysely';
import type { RepoContext } from '../repo-context.ts';
import type { CallTable } from '../schema.ts';
import { patchValues, toCall } from './rows.ts';
import { updateOne } from './status.ts';
import type { Call, CallMove } from './types.ts';

// Several compare-and-set moves at once (calls ending together): one statement per shape of
// patch on PostgreSQL.

/** PostgreSQL types of the patchable columns that are not text (for `updateMany`'s VALUES). */
const PG_TYPES: Record<string, string> = {
  variables: 'jsonb',
  metadata: 'jsonb',
  settings: 'jsonb',
  state: 'jsonb',
  analysis: 'jsonb',
  quality: 'jsonb',
  holds_slot: 'integer',
  after_call: 'integer',
  ringing_at: 'bigint',
  answered_at: 'bigint',
  ended_at: 'bigint',
  duration_seconds: 'integer',
};

export function callGroupMoves(ctx: RepoContext) {
  const { db, clock, dialect } = ctx;
  const update = updateOne(ctx);
  return {
    /**
     * Several compare-and-set moves at once (calls ending together); each answer is what `update`
     * would answer for that move. On PostgreSQL the moves of one shape (the same patched columns)
     * are one statement, `UPDATE ... FROM (VALUES ...)`: a round trip per group instead of one
     * per call. A call named twice is moved in order, one statement each, so no move is lost.
     */
    async updateMany(moves: readonly CallMove[]): Promise<(Call | null)[]> {
      const ids = new Set(moves.map((m) => m.id));
      if (dialect !== 'postgres' || moves.length < 2 || ids.size < moves.length) {
        const moved: (Call | null)[] = [];
        for (const m of moves)
          moved.push(await update(m.workspaceId, m.id, m.from, m.patch, undefined, m.whileAfterCall));
        return moved;
      }
      const now = clock.now();
      const values = moves.map((m) => patchValues(m.patch) as Record<string, unknown>);
      const shapes = new Map<string, number[]>();
      values.forEach((v, i) => {
        const key = `${moves[i]!.whileAfterCall ? 'after_call|' : '|'}${Object.keys(v).join(',')}`;
        shapes.set(key, [...(shapes.get(key) ?? []), i]);
      });
      const byId = new Map<string, Call>();
      for (const [key, indexes] of shapes) {
        const [guard = '', columns = ''] = key.split('|');
        const cols = columns === '' ? [] : columns.split(',');
        const rows = indexes.map((i) => {
          const m = moves[i]!;
          const cells = cols.map(
            (k) => sql`cast(${values[i]![k] ?? null} as ${sql.raw(PG_TYPES[k] ?? 'text')})`,
          );
          return sql`(${sql.join([sql`${m.id}`, sql`${m.workspaceId}`, sql`cast(${[...m.from]} as text[])`, ...cells])})`;
        });
        const sets = [
          ...cols.map((k) => sql`${sql.id(k)} = v.${sql.id(k)}`),
          sql`version = c.version + 1`,
          sql`updated_at = ${now}`,
        ];
        const result = await sql<Selectable<CallTable>>`update calls as c set ${sql.join(sets)}
          from (values ${sql.join(rows)}) as v(${sql.join(['id', 'workspace_id', 'from_statuses', ...cols].map((k) => sql.id(k)))})
          where c.id = v.id and c.workspace_id = v.workspace_id and c.status = any(v.from_statuses)
            ${guard === 'after_call' ? sql`and c.after_call = 1` : sql``}
          returning c.*`.execute(db);
        for (const row of result.rows) byId.set(row.id, toCall(row));
      }
      return moves.map((m) => byId.get(m.id) ?? null);
    },
  };
}
