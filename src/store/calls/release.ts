import { sql, type Selectable } from 'kysely';
import type { RepoContext } from '../repo-context.ts';
import type { CallTable } from '../schema.ts';
import { toCall } from './rows.ts';
import { admittable, busy, ringing } from './slot-accounting.ts';
import type { Call } from './types.ts';

// Slots given back at hang-up, each handed to a waiting call in the same round trip.

/** A call that hung up, and when. */
type Release = { id: string; endedAt: number };
/** The calls released (null: moved by someone else first) and the waiting calls admitted. */
type Released = { released: (Call | null)[]; admitted: Call[] };
/** One `releaseSlots`: the workspace, its releases, the node admitting, whether it admits, when. */
type ReleaseJob = {
  workspaceId: string;
  releases: readonly Release[];
  node: string;
  admit: boolean;
  now: number;
};

export function callRelease(ctx: RepoContext) {
  const { db, clock, dialect, transact } = ctx;

  /** PostgreSQL: the releases and the admissions they allow in one statement. */
  async function releaseInOneStatement({
    workspaceId,
    releases,
    node,
    admit,
    now,
  }: ReleaseJob): Promise<Released> {
    const values = releases.map((r) => sql`(${r.id}, cast(${r.endedAt} as bigint))`);
    // Every part of the statement sees one snapshot: in `held` the released calls still
    // hold their slots, hence `held.n - freed.n + rn`.
    const result = await sql<Selectable<CallTable> & { kind: 'released' | 'admitted' }>`
      with v(id, ended_at) as (values ${sql.join(values)}),
      released as (
        update calls as c set holds_slot = 0, ended_at = v.ended_at, version = c.version + 1, updated_at = ${now}
        from v
        where c.workspace_id = ${workspaceId} and c.id = v.id and c.status = 'in-progress' and c.holds_slot = 1
        returning c.*
      ),
      freed as (select count(*)::int as n from released),
      held as (select count(*)::int as n from calls where workspace_id = ${workspaceId} and holds_slot = 1),
      cap as (select greatest(1, max_concurrent_calls) as max from workspaces where id = ${workspaceId}),
      candidates as materialized (
        select w.id, w.seq, coalesce(b.reserved_concurrency, 0) as reserved,
          case when w.batch_call_id is null then 0 else 1 end as from_batch
        from calls as w left join batches as b on b.id = w.batch_call_id, held, freed, cap
        where w.workspace_id = ${workspaceId} and w.status = 'pending'
          and (w.node is null or w.node = ${node})
          and (w.batch_call_id is null or b.status in ('scheduled', 'in_progress'))
          and held.n - freed.n + 1 <= cap.max - coalesce(b.reserved_concurrency, 0)
        order by from_batch, w.seq
        limit ${admit ? releases.length : 0}
        for update of w skip locked
      ),
      ranked as (select id, reserved, row_number() over (order by from_batch, seq) as rn from candidates),
      admitted as (
        update calls as c set status = 'ringing', holds_slot = 1, node = ${node}, ringing_at = ${now},
          version = c.version + 1, updated_at = ${now}
        from ranked, freed, held, cap
        where c.id = ranked.id and ranked.rn <= freed.n and held.n - freed.n + ranked.rn <= cap.max - ranked.reserved
        returning c.*
      )
      select 'released' as kind, * from released union all select 'admitted' as kind, * from admitted`.execute(
      db,
    );
    const released = new Map<string, Call>();
    const admitted: Call[] = [];
    for (const row of result.rows) {
      if (row.kind === 'released') released.set(row.id, toCall(row));
      else admitted.push(toCall(row));
    }
    return {
      released: releases.map((r) => released.get(r.id) ?? null),
      admitted: admitted.sort((a, b) => a.seq - b.seq),
    };
  }

  /** Statement by statement, in a transaction (SQLite, or a call released twice at once). */
  function releaseStepByStep({ workspaceId, releases, node, admit, now }: ReleaseJob): Promise<Released> {
    return transact(async (trx) => {
      const released: (Call | null)[] = [];
      for (const r of releases) {
        const row = await trx
          .updateTable('calls')
          .set({ holds_slot: 0, ended_at: r.endedAt, version: sql`version + 1`, updated_at: now })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', r.id)
          .where('status', '=', 'in-progress')
          .where('holds_slot', '=', 1)
          .returningAll()
          .executeTakeFirst();
        released.push(row ? toCall(row) : null);
      }
      const freed = released.filter((c) => c !== null).length;
      if (freed === 0 || !admit) return { released, admitted: [] };
      const workspace = await trx
        .selectFrom('workspaces')
        .select('max_concurrent_calls')
        .where('id', '=', workspaceId)
        .executeTakeFirst();
      const max = Math.max(1, workspace?.max_concurrent_calls ?? 0);
      const held = await busy(trx, workspaceId);
      const ids = await admittable(trx, workspaceId, node, held, max, Math.min(freed, max - held));
      return { released, admitted: await ringing(ctx, trx, ids, node) };
    });
  }

  return {
    /**
     * Hands the slots of calls that hung up to waiting calls, in one statement on PostgreSQL: each
     * release (`endedAt`, a compare and set on an in-progress call holding its slot) lets at most
     * one waiting call of the workspace take a slot (`admittable`'s rules, the workspace's
     * maximum read in the same statement). The number of calls holding slots never grows here, so
     * no lock is needed for the cap: a freed line is refilled in the release's own round trip.
     * Answers the released calls (null: the move was made by someone else first) and the
     * admitted ones, now owned by `node` (none when `admit` is false: a node shutting down).
     */
    async releaseSlots(
      workspaceId: string,
      releases: readonly Release[],
      node: string,
      admit = true,
    ): Promise<Released> {
      if (releases.length === 0) return { released: [], admitted: [] };
      const job = { workspaceId, releases, node, admit, now: clock.now() };
      if (dialect === 'postgres' && new Set(releases.map((r) => r.id)).size === releases.length) {
        return releaseInOneStatement(job);
      }
      return releaseStepByStep(job);
    },
  };
}
