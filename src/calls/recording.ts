import type { Logger } from '../core/index.ts';
import type { Agent, Call, RecordingStorage, Workspace } from '../store/index.ts';
import type { CallLeg } from '../telephony/index.ts';
import { recordLeg, type RecordingInfo } from '../voice/index.ts';
import type { Clock } from '../core/index.ts';

// A call's recording (`is_recording`): both sides of an audio leg, as what the voice session hears
// and what the caller heard of the agent, into the recording storage (a stereo WAV under the data
// dir). The record gets `recording_url` (served to the workspace's key, see src/api/calls) once
// the file is complete. Text legs carry no audio, so they have no recording.

export interface CallRecordings {
  storage: RecordingStorage;
  /** The URL clients fetch a call's recording from (PARLEY_PUBLIC_URL + the route). */
  urlOf(callId: string): string;
}

export interface ActiveRecording {
  /** The leg to talk on: the carrier's, with both directions recorded. */
  leg: CallLeg;
  /** Completes the file after the call; the recording's URL, or null when none was kept. */
  finish(): Promise<string | null>;
}

export async function startRecording(
  options: { recordings: CallRecordings | null; clock: Clock; logger: Logger },
  workspace: Workspace,
  call: Call,
  agent: Agent,
  leg: CallLeg,
): Promise<ActiveRecording | null> {
  const { recordings, logger } = options;
  if (!recordings || !agent.spec.is_recording || leg.text) return null;
  let writer;
  try {
    writer = await recordings.storage.create(workspace.id, call.id);
  } catch (err) {
    logger.warn({ err, call_id: call.id }, 'the recording could not start; the call goes on unrecorded');
    return null;
  }
  const recording = recordLeg(leg, { clock: options.clock, sink: writer, logger });
  return {
    leg: recording.leg,
    async finish() {
      let info: RecordingInfo | null;
      try {
        info = await recording.finish();
      } catch (err) {
        logger.warn({ err, call_id: call.id }, 'the recording was not kept');
        return null;
      }
      if (info && (info.droppedMs > 0 || info.skippedFrames > 0))
        logger.warn(
          { call_id: call.id, dropped_ms: info.droppedMs, skipped_frames: info.skippedFrames },
          'the recording has gaps',
        );
      return info ? recordings.urlOf(call.id) : null;
    },
  };
}
