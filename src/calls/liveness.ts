import type { NodeAbout } from '../store/index.ts';
import { finalize } from './after-call.ts';
import type { CallContext } from './context.ts';
import { cutShortEnd } from './cut-short.ts';
import { isCallStatus, isEndCallReason } from './status.ts';

// Liveness: this node says it is alive; a node silent for `deadAfterMs` is taken over: its calls
// fail (their outcome is unknown, and their slots come back), then whoever else held its work
// (the dialer: recipients it had claimed without a call) is told. Two nodes taking over the same
// one is harmless: each move is a compare and set.

/** A node silent this long is taken over by the others, and no longer named for new calls. */
export const NODE_DEAD_AFTER_MS = 30_000;

export interface LivenessOptions {
  /** What this node says about itself with each heartbeat. */
  about: NodeAbout;
  /** How often this node records that it is alive (default 5 s). */
  heartbeatMs?: number;
  /** A node silent this long is taken over by the others (default NODE_DEAD_AFTER_MS). */
  deadAfterMs?: number;
  /** Told when a silent node was taken over (the dialer returns its claims to the queue). */
  onTakeover?: (deadNode: string) => Promise<void>;
}

/**
 * Calls `owner` was running when it stopped: their outcome is unknown, so they fail, and so do
 * calls waiting to run there only (their WS media session lived there); each keeps what was said
 * and recorded before (cut-short.ts). Calls that had hung up keep their ending; their last move
 * is made without the analysis (it ran on the stopped node), so their usage is metered and their
 * post-call webhook sent.
 */
export async function failInterrupted(ctx: CallContext, owner: string): Promise<number> {
  const interrupted = await ctx.store.calls.ownedBy(owner, ['pending', 'ringing', 'in-progress']);
  for (const call of interrupted) {
    const workspace = await ctx.store.workspaces.get(call.workspaceId);
    if (!workspace) continue;
    await finalize(ctx, workspace, call, await cutShortEnd(ctx, workspace, call));
  }
  const unfinished = await ctx.store.calls.afterCallOf(owner);
  for (const call of unfinished) {
    const workspace = await ctx.store.workspaces.get(call.workspaceId);
    if (!workspace || !isCallStatus(call.status)) continue;
    await finalize(ctx, workspace, call, {
      status: call.status,
      ...(call.endCallReason && isEndCallReason(call.endCallReason)
        ? { endCallReason: call.endCallReason }
        : {}),
      customEndCallReason: call.customEndCallReason,
      errorMessage: call.errorMessage,
      durationSeconds: call.durationSeconds ?? 0,
      ...(call.endedAt !== null ? { endedAt: call.endedAt } : {}),
      releasedAtHangUp: true,
      from: [call.status],
      afterCall: true,
    });
    ctx.logger.warn(
      { call_id: call.id, node: owner },
      'a call ended without its analysis: its server stopped',
    );
  }
  return interrupted.length + unfinished.length;
}

/** One liveness step, at most once per heartbeat. */
export function createLiveness(ctx: CallContext, options: LivenessOptions): () => Promise<void> {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const deadAfterMs = options.deadAfterMs ?? NODE_DEAD_AFTER_MS;
  let lastBeat = Number.NEGATIVE_INFINITY;
  return async () => {
    const now = ctx.clock.now();
    if (now - lastBeat < heartbeatMs) return;
    lastBeat = now;
    await ctx.store.nodes.heartbeat(ctx.node, options.about);
    for (const dead of await ctx.store.nodes.silentSince(now - deadAfterMs, ctx.node)) {
      const failed = await failInterrupted(ctx, dead);
      await options.onTakeover?.(dead);
      await ctx.store.nodes.forget(dead, now - deadAfterMs);
      ctx.logger.warn({ node: dead, failed_calls: failed }, 'took over a silent node');
    }
  };
}
