import type { RepoContext } from '../repo-context.ts';

// The waiting queue as the pollers and the `eta` see it: whether calls wait, where, how many are
// ahead of one, and how long calls last.

export function callQueue({ db }: RepoContext) {
  return {
    /** Whether a call of the workspace waits for a slot (one index probe, no lock). */
    async hasWaiting(workspaceId: string): Promise<boolean> {
      const row = await db
        .selectFrom('calls')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'pending')
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Workspaces with waiting calls (for a poll that admits them). */
    async workspacesWaiting(limit = 100): Promise<string[]> {
      const rows = await db
        .selectFrom('calls')
        .select('workspace_id')
        .distinct()
        .where('status', '=', 'pending')
        .limit(limit)
        .execute();
      return rows.map((r) => r.workspace_id);
    },

    /**
     * For `eta` of a call placed on its own: the calls placed on their own waiting before `seq`
     * (a campaign's standby calls wait behind them, see `admittable`) and the calls holding
     * slots, read in one statement (one snapshot), so a call admitted meanwhile is counted once.
     */
    async queueAhead(workspaceId: string, seq: number): Promise<{ waiting: number; busy: number }> {
      const row = await db
        .selectNoFrom((eb) => [
          eb
            .selectFrom('calls')
            .select(eb.fn.countAll<number>().as('n'))
            .where('workspace_id', '=', workspaceId)
            .where('status', '=', 'pending')
            .where('batch_call_id', 'is', null)
            .where('seq', '<', seq)
            .as('waiting'),
          eb
            .selectFrom('calls')
            .select(eb.fn.countAll<number>().as('n'))
            .where('workspace_id', '=', workspaceId)
            .where('holds_slot', '=', 1)
            .as('busy'),
        ])
        .executeTakeFirstOrThrow();
      return { waiting: Number(row.waiting ?? 0), busy: Number(row.busy ?? 0) };
    },

    /** Mean duration in seconds of the workspace's last `n` ended calls that were answered. */
    async recentMeanDuration(workspaceId: string, n = 50): Promise<number | null> {
      const rows = await db
        .selectFrom('calls')
        .select('duration_seconds')
        .where('workspace_id', '=', workspaceId)
        .where('duration_seconds', '>', 0)
        .orderBy('seq', 'desc')
        .limit(n)
        .execute();
      if (rows.length === 0) return null;
      return rows.reduce((sum, r) => sum + Number(r.duration_seconds), 0) / rows.length;
    },
  };
}
