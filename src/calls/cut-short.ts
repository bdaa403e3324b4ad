import type { Call, CallSettings, Workspace } from '../store/index.ts';
import { formatTranscript, sealWav, wavSeconds } from '../voice/index.ts';
import type { CallEnd } from './after-call.ts';
import type { CallContext } from './context.ts';
import { recordingUrlOf } from './payload.ts';
import { isFinal } from './status.ts';

// A call whose node died mid-call (docs/durability.md): it fails as before ("the server running
// it stopped"), but with what was kept while it ran: the turns completed before the death
// (turn-log.ts), the recording as far as it was written (recovered from what the recorder left,
// when this node can reach it: the same data dir, after a restart or on shared storage), and a
// duration from the answer to the last durable moment: the later of the last kept turn and the
// end of the recovered audio. The record's `settings.cut_short` says so, and the post-call
// webhook's `call.cut_short`.

export const INTERRUPTED_MESSAGE = 'the call was interrupted: the server running it stopped';

export async function cutShortEnd(ctx: CallContext, workspace: Workspace, call: Call): Promise<CallEnd> {
  const end: CallEnd = { status: 'failed', errorMessage: INTERRUPTED_MESSAGE };
  const settings: CallSettings = { ...call.settings, cut_short: true };
  const answeredAt = call.answeredAt;
  if (answeredAt === null) return { ...end, settings };
  const turns = await ctx.store.callTurns.of(workspace.id, call.id);
  let lastDurable = Math.max(answeredAt, ...turns.map((t) => t.at));
  const recordings = ctx.recordings;
  if (recordings) {
    const kept = await recordings.storage.recover(workspace.id, call.id, sealWav).catch((err: unknown) => {
      ctx.logger.warn(
        { err, call_id: call.id },
        'the recording of an interrupted call could not be recovered',
      );
      return null;
    });
    if (kept !== null) {
      settings.recording_url = recordings.urlOf(call.id);
      lastDurable = Math.max(lastDurable, answeredAt + Math.round(wavSeconds(kept) * 1000));
    }
  }
  return {
    ...end,
    settings,
    transcript: formatTranscript(turns, 'voice'),
    durationSeconds: Math.round((lastDurable - answeredAt) / 1000),
    endedAt: lastDurable,
  };
}

/**
 * Recordings this node left unfinished when it died, of calls finished meanwhile by a node that
 * could not reach them (no shared data dir): kept now that this node is back, and the records
 * point at them (their post-call webhooks went out without). Runs at start, after this node's
 * own interrupted calls were finished (which recovers theirs).
 */
export async function recoverLeftRecordings(ctx: CallContext): Promise<number> {
  const recordings = ctx.recordings;
  if (!recordings) return 0;
  let kept = 0;
  for (const { workspaceId, callId } of await recordings.storage.unfinished()) {
    const call = await ctx.store.calls.get(workspaceId, callId);
    // Calls that still run (here or on a node sharing the directory) are being recorded.
    if (!call || call.node !== ctx.node || !isFinal(call.status) || recordingUrlOf(call)) continue;
    const bytes = await recordings.storage.recover(workspaceId, callId, sealWav);
    if (bytes === null) continue;
    await ctx.writer.move({
      workspaceId,
      id: callId,
      from: [call.status],
      patch: { settings: { ...call.settings, recording_url: recordings.urlOf(callId) } },
    });
    kept += 1;
  }
  if (kept > 0)
    ctx.logger.warn({ recordings: kept }, 'recordings left by a stop were kept after their calls ended');
  return kept;
}
