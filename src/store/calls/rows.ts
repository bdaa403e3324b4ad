import type { Selectable, Updateable } from 'kysely';
import { newId } from '../../core/index.ts';
import { fromJson, toJson } from '../json.ts';
import type { CallTable } from '../schema.ts';
import { parseCallSettings } from './settings.ts';
import type { Call, CallPatch, NewCall } from './types.ts';

// Between call rows and call records: a row read back (`toCall`), a new row (`callRow`), the
// columns a patch sets (`patchValues`).

export function toCall(row: Selectable<CallTable>): Call {
  const n = (v: number | null) => (v === null || v === undefined ? null : Number(v));
  return {
    seq: Number(row.seq),
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    agentVersionId: row.agent_version_id ?? null,
    type: row.type as Call['type'],
    status: row.status,
    endCallReason: row.end_call_reason,
    customEndCallReason: row.custom_end_call_reason,
    errorMessage: row.error_message,
    phoneFrom: row.phone_from,
    phoneTo: row.phone_to,
    leadName: row.lead_name,
    leadEmail: row.lead_email,
    leadTimezone: row.lead_timezone,
    variables: fromJson<Call['variables']>(row.variables) ?? {},
    metadata: fromJson<Record<string, unknown>>(row.metadata) ?? {},
    settings: parseCallSettings(fromJson<unknown>(row.settings)),
    webhookUrl: row.webhook_url,
    batchCallId: row.batch_call_id,
    batchTaskId: row.batch_task_id,
    state: fromJson<unknown>(row.state),
    analysis: fromJson<unknown>(row.analysis),
    quality: fromJson<unknown>(row.quality),
    transcript: row.transcript,
    callSid: row.call_sid,
    node: row.node,
    holdsSlot: Number(row.holds_slot) === 1,
    afterCallPending: Number(row.after_call) === 1,
    createdAt: Number(row.created_at),
    ringingAt: n(row.ringing_at),
    answeredAt: n(row.answered_at),
    endedAt: n(row.ended_at),
    durationSeconds: n(row.duration_seconds),
    version: Number(row.version),
    updatedAt: Number(row.updated_at),
  };
}

export function patchValues(patch: CallPatch): Updateable<CallTable> {
  const v: Updateable<CallTable> = {};
  if (patch.status !== undefined) v.status = patch.status;
  if (patch.agentId !== undefined) v.agent_id = patch.agentId;
  if (patch.agentVersionId !== undefined) v.agent_version_id = patch.agentVersionId;
  if (patch.endCallReason !== undefined) v.end_call_reason = patch.endCallReason;
  if (patch.customEndCallReason !== undefined) v.custom_end_call_reason = patch.customEndCallReason;
  if (patch.errorMessage !== undefined) v.error_message = patch.errorMessage;
  if (patch.variables !== undefined) v.variables = toJson(patch.variables);
  if (patch.metadata !== undefined) v.metadata = toJson(patch.metadata);
  if (patch.settings !== undefined) v.settings = toJson(patch.settings);
  if (patch.state !== undefined) v.state = toJson(patch.state);
  if (patch.analysis !== undefined) v.analysis = toJson(patch.analysis);
  if (patch.quality !== undefined) v.quality = toJson(patch.quality);
  if (patch.transcript !== undefined) v.transcript = patch.transcript;
  if (patch.callSid !== undefined) v.call_sid = patch.callSid;
  if (patch.node !== undefined) v.node = patch.node;
  if (patch.holdsSlot !== undefined) v.holds_slot = patch.holdsSlot ? 1 : 0;
  if (patch.afterCallPending !== undefined) v.after_call = patch.afterCallPending ? 1 : 0;
  if (patch.ringingAt !== undefined) v.ringing_at = patch.ringingAt;
  if (patch.answeredAt !== undefined) v.answered_at = patch.answeredAt;
  if (patch.endedAt !== undefined) v.ended_at = patch.endedAt;
  if (patch.durationSeconds !== undefined) v.duration_seconds = patch.durationSeconds;
  return v;
}

export function callRow(workspaceId: string, input: NewCall, now: number) {
  return {
    id: input.id ?? newId(),
    workspace_id: workspaceId,
    agent_id: input.agentId,
    agent_version_id: input.agentVersionId ?? null,
    type: input.type,
    status: input.status,
    phone_from: input.phoneFrom,
    phone_to: input.phoneTo,
    lead_name: input.leadName,
    lead_email: input.leadEmail ?? null,
    lead_timezone: input.leadTimezone ?? null,
    variables: toJson(input.variables ?? {}) ?? '{}',
    metadata: toJson(input.metadata ?? {}) ?? '{}',
    settings: toJson(input.settings ?? {}) ?? '{}',
    webhook_url: input.webhookUrl ?? null,
    batch_call_id: input.batchCallId ?? null,
    batch_task_id: input.batchTaskId ?? null,
    node: input.node ?? null,
    holds_slot: input.holdsSlot ? 1 : 0,
    ringing_at: input.ringingAt ?? null,
    created_at: now,
    updated_at: now,
  };
}
