import { sql } from 'kysely';
import type { Db } from '../database.ts';
import type { RepoContext } from '../repo-context.ts';
import { toCall } from './rows.ts';
import type { Call } from './types.ts';

// The steps slot accounting is made of, each run on the handle it is given (the caller's
// transaction): the workspace's slot lock, the counts, which waiting calls may take a slot, and
// their move to `ringing`.

/**
 * Serializes slot accounting of one workspace until the transaction ends: a transaction-scoped
 * advisory lock on PostgreSQL (SQLite: its write lock). Not the workspace's row lock: calls
 * ending meter their minutes on that row, and must not wait for an admission to commit.
 */
export async function lockSlots(ctx: RepoContext, trx: Db, workspaceId: string) {
  if (ctx.dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`parley-slots:${workspaceId}`}, 0))`.execute(
      trx,
    );
  }
}

export async function busy(trx: Db, workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom('calls')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('holds_slot', '=', 1)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function slotsWanted(trx: Db, workspaceId: string): Promise<number> {
  const row = await trx
    .selectNoFrom((eb) => [
      eb
        .selectFrom('calls')
        .select(eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('holds_slot', '=', 1)
        .as('busy'),
      eb
        .selectFrom('calls')
        .select(eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'pending')
        .as('waiting'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.busy ?? 0) + Number(row.waiting ?? 0);
}

/**
 * Waiting calls that may take a slot now, at most `room`: calls placed on their own first (a
 * campaign's standby calls were dispatched ahead of need and must not hold them up), then the
 * oldest first. A batch's call only while its batch is dialing (a paused batch's calls were
 * returned to it), and only while the workspace's calls holding slots (`held`, plus the ones
 * admitted before it) stay within `max` minus its batch's reserved_concurrency. The caller
 * holds the slot lock, or frees as many slots as it may fill.
 */
export async function admittable(
  trx: Db,
  workspaceId: string,
  node: string,
  held: number,
  max: number,
  room: number,
) {
  if (room <= 0) return [];
  const rows = await trx
    .selectFrom('calls as w')
    .leftJoin('batches as b', 'b.id', 'w.batch_call_id')
    .select(['w.id', 'b.reserved_concurrency'])
    .where('w.workspace_id', '=', workspaceId)
    .where('w.status', '=', 'pending')
    // A waiting call with a node named runs there only (a WS media call runs where its client binds).
    .where((eb) => eb.or([eb('w.node', 'is', null), eb('w.node', '=', node)]))
    .where((eb) =>
      eb.or([eb('w.batch_call_id', 'is', null), eb('b.status', 'in', ['scheduled', 'in_progress'])]),
    )
    // A batch's call whose reserved slots rule it out now does not stand in the way of others.
    .where((eb) =>
      eb.or([eb('b.reserved_concurrency', 'is', null), eb('b.reserved_concurrency', '<=', max - held - 1)]),
    )
    .orderBy(sql`case when w.batch_call_id is null then 0 else 1 end`)
    .orderBy('w.seq')
    .limit(room)
    .execute();
  const ids: string[] = [];
  for (const row of rows) {
    if (held + ids.length + 1 <= max - (row.reserved_concurrency ?? 0)) ids.push(row.id);
  }
  return ids;
}

/** Moves waiting calls to `ringing`, holding slots, owned by `node`: the admitted calls. */
export async function ringing(
  ctx: RepoContext,
  trx: Db,
  ids: readonly string[],
  node: string,
): Promise<Call[]> {
  if (ids.length === 0) return [];
  const now = ctx.clock.now();
  const rows = await trx
    .updateTable('calls')
    .set({
      status: 'ringing',
      holds_slot: 1,
      node,
      ringing_at: now,
      version: sql`version + 1`,
      updated_at: now,
    })
    .where('id', 'in', [...ids])
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
  return rows.map(toCall).sort((a, b) => a.seq - b.seq);
}
