// Call statuses (spec, Resources: Call record) and the moves between them (DESIGN.md section 4).
// The specification lists the values; the transitions are Parley's:
//
//   pending ──> ringing ──> in-progress ──> completed | left_voicemail | hangup_on_voicemail
//      │           │              └──────> failed | user-canceled | spam
//      │           └──> no-answer | busy | failed | canceled | hangup_on_voicemail
//      └──> canceled | failed                      (before a slot: canceled, or undialable)
//   registered ──> paused ──> registered           (inbound: routing, on hold while retrying)
//   registered | paused ──> in-progress | canceled | failed | busy
//
// A final status never changes again.

export const CALL_STATUSES = [
  'pending',
  'ringing',
  'in-progress',
  'completed',
  'no-answer',
  'busy',
  'failed',
  'canceled',
  'user-canceled',
  'hangup_on_voicemail',
  'left_voicemail',
  'spam',
  'paused',
  'registered',
] as const;

export type CallStatus = (typeof CALL_STATUSES)[number];

export const FINAL_STATUSES: readonly CallStatus[] = [
  'completed',
  'no-answer',
  'busy',
  'failed',
  'canceled',
  'user-canceled',
  'hangup_on_voicemail',
  'left_voicemail',
  'spam',
];

export const END_CALL_REASONS = [
  'voicemail',
  'voicemail_message_left',
  'human_goodbye',
  'agent_goodbye',
  'human_pick_up_cut_off',
  'max_duration',
  'custom_end_call',
  'user_canceled',
  'undefined',
] as const;

export type EndCallReason = (typeof END_CALL_REASONS)[number];

const MOVES: Record<CallStatus, readonly CallStatus[]> = {
  pending: ['ringing', 'canceled', 'failed'],
  ringing: ['in-progress', 'no-answer', 'busy', 'failed', 'canceled', 'hangup_on_voicemail'],
  'in-progress': ['completed', 'left_voicemail', 'hangup_on_voicemail', 'failed', 'user-canceled', 'spam'],
  registered: ['paused', 'in-progress', 'canceled', 'failed', 'busy'],
  paused: ['registered', 'in-progress', 'canceled', 'failed'],
  completed: [],
  'no-answer': [],
  busy: [],
  failed: [],
  canceled: [],
  'user-canceled': [],
  hangup_on_voicemail: [],
  left_voicemail: [],
  spam: [],
};

export const isCallStatus = (value: string): value is CallStatus =>
  (CALL_STATUSES as readonly string[]).includes(value);

export const isEndCallReason = (value: string): value is EndCallReason =>
  (END_CALL_REASONS as readonly string[]).includes(value);

export const isFinal = (status: string): boolean => (FINAL_STATUSES as readonly string[]).includes(status);

export function canMove(from: string, to: string): boolean {
  return isCallStatus(from) && isCallStatus(to) && MOVES[from].includes(to);
}

/** The statuses a call may be in for a move to `to` (the compare of the store's compare-and-set). */
export function movesInto(to: CallStatus): CallStatus[] {
  return CALL_STATUSES.filter((from) => MOVES[from].includes(to));
}

/** The `end_call_reason` of a final status reached without a conversation deciding it. */
export function defaultEndReason(status: CallStatus): EndCallReason {
  switch (status) {
    case 'hangup_on_voicemail':
      return 'voicemail';
    case 'left_voicemail':
      return 'voicemail_message_left';
    case 'user-canceled':
      return 'user_canceled';
    default:
      return 'undefined';
  }
}
