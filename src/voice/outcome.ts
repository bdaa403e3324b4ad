import type { Ending } from '../conversation/index.ts';
import type { VoiceQuality } from './quality.ts';

// How a voice call ended, in the call record's vocabulary (src/calls/status.ts; voice may not
// import calls, so the values are repeated here and calls checks they fit). Reasons chosen:
//   far end hung up: completed / human_goodbye (human_pick_up_cut_off if the caller said nothing)
//   the conversation ended it: completed / agent_goodbye, human_goodbye or custom_end_call
//   maximum duration: completed / max_duration (after MAX_DURATION_LINE)
//   caller silent for allowed_idle_time_seconds: completed / undefined (status.ts has no idle
//     or timeout reason; the published API's `timeout` is not in Parley's list)
//   answering machine: left_voicemail / voicemail_message_left, or hangup_on_voicemail / voicemail
//   canceled (the signal): canceled / undefined
//   a provider failed or stalled, or the carrier dropped the call: failed / undefined + errorMessage

export type VoiceCallStatus = 'completed' | 'left_voicemail' | 'hangup_on_voicemail' | 'failed' | 'canceled';

export type VoiceEndReason =
  | 'voicemail'
  | 'voicemail_message_left'
  | 'human_goodbye'
  | 'agent_goodbye'
  | 'human_pick_up_cut_off'
  | 'max_duration'
  | 'custom_end_call'
  | 'undefined';

export type AnsweredBy = 'human' | 'machine';

export interface VoiceCallOutcome {
  status: VoiceCallStatus;
  endCallReason: VoiceEndReason;
  customEndCallReason: string | null;
  errorMessage: string | null;
}

export interface VoiceCallResult extends VoiceCallOutcome {
  answeredBy: AnsweredBy;
  quality: VoiceQuality;
}

/** Said when the model fails for a turn; the call goes on. */
export const CALL_FALLBACK_LINE = "Sorry, I didn't get that. Could you say it again?";
/** Said when the maximum duration is reached. */
export const MAX_DURATION_LINE = "I'm sorry, we've run out of time. Thank you for your time, goodbye!";

export const outcome = (
  status: VoiceCallStatus,
  endCallReason: VoiceEndReason,
  extra: Partial<VoiceCallOutcome> = {},
): VoiceCallOutcome => ({ status, endCallReason, customEndCallReason: null, errorMessage: null, ...extra });

/** The end reason of a conversation the engine ended. */
export function outcomeOfEnding(ending: Ending): VoiceCallOutcome {
  switch (ending.kind) {
    case 'custom_end_call':
      return outcome('completed', 'custom_end_call', { customEndCallReason: ending.customReason });
    case 'human_goodbye':
      return outcome('completed', 'human_goodbye');
    default:
      return outcome('completed', 'agent_goodbye');
  }
}

/** How the conversation records a call that ended for `result` (null: it stays open). */
export function endingOfOutcome(result: VoiceCallOutcome): Ending | null {
  if (result.status === 'failed' || result.status === 'canceled') return null;
  if (result.endCallReason === 'human_goodbye' || result.endCallReason === 'human_pick_up_cut_off') {
    return { kind: 'human_goodbye' };
  }
  return { kind: 'agent_goodbye' };
}
