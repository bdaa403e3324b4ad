import { toZonedIso } from '../core/index.ts';
import { presentActions } from '../runtime/index.ts';
import type { Call } from '../store/index.ts';

// The post-call webhook payload, exactly the specification's Events part: `status`,
// `error_message`, `lead`, `call`, `executed_actions`, `analysis`, `metadata`,
// `collected_variables`, and `action_execution_timeline` only when the workspace turned it on.

export function callTimezone(call: Call, agentTimezone: string | undefined): string {
  return call.leadTimezone || agentTimezone || 'UTC';
}

export interface PayloadOptions {
  includeTimeline: boolean;
  agentTimezone?: string;
  recordingBaseUrl?: string;
}

export function postCallPayload(call: Call, options: PayloadOptions): Record<string, unknown> {
  const actions = presentActions(call.state);
  const timezone = callTimezone(call, options.agentTimezone);
  const started = call.answeredAt ?? call.ringingAt ?? call.createdAt;
  const payload: Record<string, unknown> = {
    status: call.status,
    error_message: call.errorMessage ?? '',
    lead: {
      name: call.leadName,
      phone_number: call.type === 'inbound' ? call.phoneFrom : call.phoneTo,
      prompt_variables: call.variables,
    },
    call: {
      status: call.status,
      end_call_reason: call.endCallReason ?? 'undefined',
      ...(call.endCallReason === 'custom_end_call'
        ? { custom_end_call_reason: call.customEndCallReason ?? '' }
        : {}),
      model_id: call.agentId,
      call_id: call.id,
      timezone,
      duration: call.durationSeconds ?? 0,
      // With the offset of the call's timezone: "2026-01-05T09:30:00-05:00".
      start_time: toZonedIso(started, timezone),
      transcript: call.transcript,
      recording_sid: null,
      recording_url: recordingUrlOf(call) ?? '',
      call_sid: call.callSid ?? '',
      agents_used: agentsUsed(call),
      // A Parley addition to the specification's `call` object (clients ignore unknown fields).
      agent_version: agentVersionOf(call),
      // Parley: true when the server running the call died mid-call (docs/durability.md): the
      // transcript, recording and duration hold what was kept up to the last completed turn.
      cut_short: call.settings.cut_short === true,
      diversion: null,
      external_id: typeof call.metadata.external_id === 'string' ? call.metadata.external_id : '',
    },
    executed_actions: actions.executed_actions,
    analysis: call.analysis ?? null,
    metadata: call.metadata,
    collected_variables: actions.collected_variables,
  };
  if (options.includeTimeline) payload.action_execution_timeline = actions.action_execution_timeline;
  return payload;
}

/** The URL of the call's recording, once one was kept. */
export function recordingUrlOf(call: Call): string | null {
  return call.settings.recording_url ?? null;
}

/** The agent version the call ran: its id, or `draft`. */
export function agentVersionOf(call: Call): string {
  return call.agentVersionId ?? 'draft';
}

/** The agents that handled the call: the one it ended with, after any it was routed from. */
export function agentsUsed(call: Call): string[] {
  const routedFrom = call.settings.routed_from;
  return routedFrom !== undefined && routedFrom !== call.agentId
    ? [routedFrom, call.agentId]
    : [call.agentId];
}
