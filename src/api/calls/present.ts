import {
  agentVersionOf,
  agentsUsed,
  callTimezone,
  recordingUrlOf,
  type CallStatus,
} from '../../calls/index.ts';
import { toIso, toZonedIso } from '../../core/index.ts';
import { presentActions } from '../../runtime/index.ts';
import type { AgentSpec } from '../../core/index.ts';
import type { Call } from '../../store/index.ts';

// The call record of GET /calls/{id} and the items of GET /calls: WIRE.md section 4, plus the
// fields of the vendor's published record (docs/api-notes.md, "Calls"). Strings the published
// record types as plain strings are never null here.

export const agentTimezoneOf = (spec: AgentSpec) => spec.agent?.timezone;

/** End reasons where the agent's side hung up; the other reasons with an ending are the person's. */
const AGENT_ENDED = new Set([
  'agent_goodbye',
  'custom_end_call',
  'max_duration',
  'voicemail',
  'voicemail_message_left',
]);
const PERSON_ENDED = new Set(['human_goodbye', 'human_pick_up_cut_off', 'user_canceled']);

/** Which party hung up (`caller` or `callee`), when the call's ending says so. */
function hangupParty(call: Call): 'caller' | 'callee' | null {
  const reason = call.endCallReason ?? '';
  const agentIsCaller = call.type !== 'inbound';
  if (AGENT_ENDED.has(reason)) return agentIsCaller ? 'caller' : 'callee';
  if (PERSON_ENDED.has(reason)) return agentIsCaller ? 'callee' : 'caller';
  return null;
}

type DisconnectReason = 'caller_hangup' | 'callee_hangup' | 'error' | 'unknown';

function disconnectReason(call: Call): DisconnectReason | null {
  if (call.endedAt === null) return null;
  const party = hangupParty(call);
  if (party) return party === 'caller' ? 'caller_hangup' : 'callee_hangup';
  return call.status === 'failed' ? 'error' : 'unknown';
}

/** The carrier leg's times: from the first ring to the hang-up, in ms. */
function telephony(call: Call) {
  const start = call.ringingAt;
  const end = call.endedAt;
  return {
    telephony_hangup: hangupParty(call),
    telephony_disconnect_reason: disconnectReason(call),
    telephony_start: start !== null ? toIso(start) : null,
    telephony_end: end !== null ? toIso(end) : null,
    telephony_duration: start !== null && end !== null ? Math.max(0, end - start) : null,
    telephony_ringing_duration:
      start !== null && (call.answeredAt ?? end) !== null
        ? Math.max(0, (call.answeredAt ?? end ?? start) - start)
        : null,
  };
}

export function presentCall(call: Call, agentTimezone?: string) {
  const timezone = callTimezone(call, agentTimezone);
  const started = call.answeredAt ?? call.ringingAt;
  return {
    call_id: call.id,
    model_id: call.agentId,
    status: call.status as CallStatus,
    end_call_reason: call.endCallReason,
    custom_end_call_reason: call.customEndCallReason,
    error_message: call.errorMessage ?? '',
    type_of_call: call.type,
    campaign_type: call.type,
    phone_number_from: call.phoneFrom,
    phone_number_to: call.phoneTo,
    name: call.leadName,
    lead_email: call.leadEmail,
    lead_timezone: call.leadTimezone,
    prompt_variables: call.variables,
    transcript: call.transcript,
    duration: call.durationSeconds ?? 0,
    start_time: started !== null ? toZonedIso(started, timezone) : null,
    end_time: call.endedAt !== null ? toZonedIso(call.endedAt, timezone) : null,
    timezone,
    recording_url: recordingUrlOf(call),
    ...presentActions(call.state),
    analysis: call.analysis ?? null,
    metadata: call.metadata,
    batch_call_id: call.batchCallId,
    quality: call.quality ?? null,
    agents_used: agentsUsed(call),
    agent_version: agentVersionOf(call),
    ...telephony(call),
    created_at: toIso(call.createdAt),
  };
}

export function listItem(call: Call, agentTimezone?: string) {
  const { status, ...rest } = presentCall(call, agentTimezone);
  return {
    ...rest,
    call_status: status,
    lead_phone_number: call.type === 'inbound' ? call.phoneFrom : call.phoneTo,
    lead_name: call.leadName,
    agent_phone_number: call.type === 'inbound' ? call.phoneTo : call.phoneFrom,
    judge_results: call.analysis ?? null,
    labels: [] as string[],
    recording_duration: null,
    deployment_type: null,
  };
}
