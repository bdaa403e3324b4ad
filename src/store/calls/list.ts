import type { RepoContext } from '../repo-context.ts';
import { toCall } from './rows.ts';
import type { Call, CallFilters } from './types.ts';

// Reading calls: one by id, a filtered page of a workspace's, and the calls a node owns.

export function callQueries({ db }: RepoContext) {
  return {
    async get(workspaceId: string, id: string): Promise<Call | null> {
      const row = await db
        .selectFrom('calls')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toCall(row) : null;
    },

    /** A call by id alone, for the simulated carrier's far end (who it is playing). */
    async getById(id: string): Promise<Call | null> {
      const row = await db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toCall(row) : null;
    },

    async list(workspaceId: string, f: CallFilters): Promise<{ calls: Call[]; total: number }> {
      let q = db.selectFrom('calls').where('workspace_id', '=', workspaceId);
      if (f.agentId !== undefined) q = q.where('agent_id', '=', f.agentId);
      if (f.status !== undefined) q = q.where('status', '=', f.status);
      if (f.batchCallId !== undefined) q = q.where('batch_call_id', '=', f.batchCallId);
      if (f.leadPhone !== undefined) {
        const phone = f.leadPhone;
        q = q.where((eb) => eb.or([eb('phone_to', '=', phone), eb('phone_from', '=', phone)]));
      }
      if (f.fromDate !== undefined) {
        const from = f.fromDate;
        q = q.where((eb) => eb(eb.fn.coalesce('ringing_at', 'answered_at'), '>=', from));
      }
      if (f.toDate !== undefined) q = q.where('ended_at', '<=', f.toDate);
      if (f.durationMin !== undefined) q = q.where('duration_seconds', '>=', f.durationMin);
      if (f.durationMax !== undefined) q = q.where('duration_seconds', '<=', f.durationMax);
      // The page's keys come off an index alone and only those rows are read whole (a deferred
      // join): a deep page no longer reads every row it skips, transcripts and all.
      const page = q.select('seq').orderBy('seq', 'desc').limit(f.limit).offset(f.offset);
      const [rows, count] = await Promise.all([
        db.selectFrom('calls').selectAll().where('seq', 'in', page).orderBy('seq', 'desc').execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ]);
      return { calls: rows.map(toCall), total: Number(count?.n ?? 0) };
    },

    /** Calls of `node` that hung up and still wait for their after-the-call work. */
    async afterCallOf(node: string): Promise<Call[]> {
      const rows = await db
        .selectFrom('calls')
        .selectAll()
        .where('node', '=', node)
        .where('after_call', '=', 1)
        .orderBy('seq')
        .execute();
      return rows.map(toCall);
    },

    /** Calls a node was running (for recovery after it stopped). */
    async ownedBy(node: string, statuses: readonly string[]): Promise<Call[]> {
      const rows = await db
        .selectFrom('calls')
        .selectAll()
        .where('node', '=', node)
        .where('status', 'in', [...statuses])
        .orderBy('seq')
        .execute();
      return rows.map(toCall);
    },
  };
}
