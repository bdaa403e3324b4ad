import type { Call, Workspace } from '../store/index.ts';
import { formatTranscript, sealWav, wavSeconds } from '../voice/index.ts';
import type { CallEnd } from './after-call.ts';
import type { CallContext } from './context.ts';

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
  const settings: Record<string, unknown> = { ...call.settings, cut_short: true };
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
