import type { Selectable } from 'kysely';
import { fromJson } from '../json.ts';
import type { BatchTable, BatchTaskTable } from '../schema.ts';
import type { Batch, BatchStatus, BatchTask, BatchTaskWithCall, TaskStatus } from './types.ts';

// From batch and recipient rows to records: a batch, a recipient, a recipient as listed.

/** The columns a listed recipient needs (fewer columns read, fewer values made per row). */
export const LISTED_COLUMNS = [
  'id',
  'position',
  'client_id',
  'to_phone_number',
  'lead_name',
  'lead_email',
  'custom_variables',
  'override_model_id',
  'status',
  'error_message',
  'call_id',
  'created_at',
  'updated_at',
] as const;

export function toBatch(row: Selectable<BatchTable>): Batch {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    name: row.name,
    status: row.status as BatchStatus,
    fromPhoneNumber: row.from_phone_number,
    fromProvider: row.from_provider,
    triggerAt: n(row.trigger_at),
    reservedConcurrency: Number(row.reserved_concurrency),
    callTimeWindow: fromJson<unknown>(row.call_time_window),
    totalTaskCount: Number(row.total_task_count),
    pendingCount: Number(row.pending_count),
    dispatchedCount: Number(row.dispatched_count),
    failedCount: Number(row.failed_count),
    canceledCount: Number(row.canceled_count),
    callsEndedCount: Number(row.calls_ended_count),
    lastDispatchAt: n(row.last_dispatch_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
  };
}

type ListedRow = Pick<Selectable<BatchTaskTable>, (typeof LISTED_COLUMNS)[number]>;
export type CallOutcome = { status: string; end_call_reason: string | null };

// Both mappers below build their record in one object literal, on purpose: spreading a record
// into a larger literal (`{ ...task, callStatus }`) made objects of about 1.1 KB instead of 0.2
// (measured with Node 20), the largest share of a listed page's garbage.

/** A recipient as listed, from the listed columns and its call's outcome. */
export function toListedTask(row: ListedRow, call: CallOutcome | undefined): BatchTaskWithCall {
  return {
    id: row.id,
    position: Number(row.position),
    clientId: row.client_id,
    toPhoneNumber: row.to_phone_number,
    leadName: row.lead_name,
    leadEmail: row.lead_email,
    customVariables: fromJson<Record<string, unknown>>(row.custom_variables),
    overrideModelId: row.override_model_id,
    status: row.status as TaskStatus,
    errorMessage: row.error_message,
    callId: row.call_id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    callStatus: call?.status ?? null,
    endCallReason: call?.end_call_reason ?? null,
  };
}

export function toTask(row: Selectable<BatchTaskTable>): BatchTask {
  return {
    id: row.id,
    batchId: row.batch_id,
    workspaceId: row.workspace_id,
    position: Number(row.position),
    clientId: row.client_id,
    toPhoneNumber: row.to_phone_number,
    leadName: row.lead_name,
    leadEmail: row.lead_email,
    customVariables: fromJson<Record<string, unknown>>(row.custom_variables),
    overrideModelId: row.override_model_id,
    status: row.status as TaskStatus,
    errorMessage: row.error_message,
    callId: row.call_id,
    claimedBy: row.claimed_by,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
