import { groupCommit, type Logger } from '../core/index.ts';
import type { Call, CallMove, CallPatch, NewWebhookDelivery, Store, Workspace } from '../store/index.ts';
import { postCallPayload } from './payload.ts';

// Group commit of the moves of running calls. A call's last move (its final status, the slot
// released, the minutes metered, its batch's counters and the post-call webhook queued) is one
// transaction; moves requested while one commits wait and are committed together in the next.
// A burst of calls ending then costs one transaction of a few statements (the calls' moves are
// one statement per shape, the post-call webhooks one insert, each hot row (a batch's counters,
// a workspace's usage) one update) instead of all of that per call. Those hot rows serialize
// their writers until commit, and every round trip waits behind the event loop of a busy
// process, so one transaction per call capped a campaign at a few hundred calls per second and
// held freed slots for hundreds of milliseconds. Each move is still its own compare and set: one
// that another writer made first is answered null and has no effects.

export interface CallEnding {
  workspace: Workspace;
  callId: string;
  /** The statuses the call may move from (the status machine's `movesInto`). */
  from: readonly string[];
  patch: CallPatch;
  /** The agent's timezone, for the webhook's times. */
  agentTimezone?: string;
  /** Only while the call waits for its after-the-call work (its last move, made once). */
  whileAfterCall?: boolean;
}

export interface CallWriter {
  /** A move without side effects (answered, ringing...): the moved call, or null. */
  move(move: CallMove): Promise<Call | null>;
  /** The last move with its effects: the ended call, or null when it had already moved. */
  end(ending: CallEnding): Promise<Call | null>;
}

interface Queued {
  move: CallMove;
  /** Present for a last move. */
  ending?: CallEnding;
}

/** Most moves in one transaction. */
const MAX_GROUP = 500;

export function createCallWriter(options: { store: Store; logger: Logger }): CallWriter {
  const { store, logger } = options;

  async function commit(group: readonly Queued[]): Promise<(Call | null)[]> {
    // Moves without effects need no transaction: each is one compare and set, and the group's
    // statement (one per shape on PostgreSQL) is atomic by itself. Two round trips fewer.
    if (group.every((q) => !q.ending)) return store.calls.updateMany(group.map((q) => q.move));
    return store.transaction(async (repos) => {
      const moved = await repos.calls.updateMany(group.map((q) => q.move));
      const usage = new Map<string, number>();
      const batchEnds = new Map<string, number>();
      const deliveries: NewWebhookDelivery[] = [];
      group.forEach(({ ending }, i) => {
        const call = moved[i];
        if (!ending || !call) return;
        const { workspace, agentTimezone } = ending;
        usage.set(workspace.id, (usage.get(workspace.id) ?? 0) + (call.durationSeconds ?? 0));
        if (call.batchCallId) batchEnds.set(call.batchCallId, (batchEnds.get(call.batchCallId) ?? 0) + 1);
        if (call.webhookUrl)
          deliveries.push({
            workspaceId: workspace.id,
            type: 'external_webhook',
            url: call.webhookUrl,
            payload: postCallPayload(call, {
              includeTimeline: workspace.includeTimelineInWebhook,
              ...(agentTimezone ? { agentTimezone } : {}),
            }),
            callId: call.id,
            assistantId: call.agentId,
          });
      });
      await repos.webhooks.enqueueMany(deliveries);
      // The records now hold the whole transcripts: the turns kept during the calls can go.
      const ended = group.flatMap(({ ending }, i) => (ending && moved[i] ? [ending.callId] : []));
      await repos.callTurns.drop(ended);
      // The shared rows last, and in one order in every process (no deadlock between groups).
      for (const id of [...usage.keys()].sort()) await repos.workspaces.addUsage(id, usage.get(id)!);
      for (const id of [...batchEnds.keys()].sort()) await repos.batches.callEnded(id, batchEnds.get(id)!);
      return moved;
    });
  }

  const enqueue = groupCommit<Queued, Call | null>({
    commit,
    maxGroup: MAX_GROUP,
    onGroupFailed: (err, moves) =>
      logger.warn({ err, moves }, 'a group of call moves failed; committing one by one'),
  });

  return {
    move: (move) => enqueue({ move }),
    end: (ending) =>
      enqueue({
        move: {
          workspaceId: ending.workspace.id,
          id: ending.callId,
          from: ending.from,
          patch: ending.patch,
          ...(ending.whileAfterCall ? { whileAfterCall: true } : {}),
        },
        ending,
      }),
  };
}
