// Campaign (batch call) and recipient records, their statuses, and what creating them takes.

export type BatchStatus = 'scheduled' | 'in_progress' | 'paused' | 'completed' | 'canceled';
export type TaskStatus = 'queued' | 'claimed' | 'dispatched' | 'failed' | 'canceled';

export const MAX_TASKS_PER_BATCH = 1_000_000;

export interface Batch {
  id: string;
  workspaceId: string;
  agentId: string;
  name: string;
  status: BatchStatus;
  fromPhoneNumber: string;
  fromProvider: string;
  triggerAt: number | null;
  reservedConcurrency: number;
  callTimeWindow: unknown;
  totalTaskCount: number;
  pendingCount: number;
  dispatchedCount: number;
  failedCount: number;
  canceledCount: number;
  callsEndedCount: number;
  lastDispatchAt: number | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
}

export interface NewTask {
  clientId?: string | null;
  toPhoneNumber: string;
  leadName?: string | null;
  leadEmail?: string | null;
  customVariables?: Record<string, unknown> | null;
  overrideModelId?: string | null;
}

export interface BatchTask extends Required<NewTask> {
  id: string;
  batchId: string;
  workspaceId: string;
  position: number;
  status: TaskStatus;
  errorMessage: string | null;
  callId: string | null;
  claimedBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A recipient as listed (what the API shows), with its call's outcome. */
export interface BatchTaskWithCall extends Omit<BatchTask, 'batchId' | 'workspaceId' | 'claimedBy'> {
  callStatus: string | null;
  endCallReason: string | null;
}

export interface NewBatch {
  agentId: string;
  name: string;
  fromPhoneNumber: string;
  fromProvider: string;
  triggerAt: number | null;
  reservedConcurrency: number;
  callTimeWindow: unknown;
  /** The batch expires this long after its creation. */
  lifetimeMs: number;
}

export type AppendResult =
  { ok: true; batch: Batch } | { ok: false; reason: 'not_found' | 'closed' | 'too_many'; batch?: Batch };
