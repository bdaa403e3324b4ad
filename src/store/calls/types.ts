import type { CallSettings } from './settings.ts';

// The call record (`Call`) and what the repository's writes and reads take: a new call, a patch,
// a compare-and-set move, the listing's filters.

export interface Call {
  seq: number;
  id: string;
  workspaceId: string;
  agentId: string;
  /** The agent version the call runs, fixed at placement; null: the draft. */
  agentVersionId: string | null;
  type: 'outbound' | 'inbound' | 'web';
  status: string;
  endCallReason: string | null;
  customEndCallReason: string | null;
  errorMessage: string | null;
  phoneFrom: string;
  phoneTo: string;
  leadName: string;
  leadEmail: string | null;
  leadTimezone: string | null;
  variables: Record<string, string | number | boolean>;
  metadata: Record<string, unknown>;
  settings: CallSettings;
  webhookUrl: string | null;
  batchCallId: string | null;
  batchTaskId: string | null;
  state: unknown;
  analysis: unknown;
  quality: unknown;
  transcript: string;
  callSid: string | null;
  node: string | null;
  holdsSlot: boolean;
  /** Hung up, its after-the-call work (analysis, webhook) not done yet. */
  afterCallPending: boolean;
  createdAt: number;
  ringingAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  durationSeconds: number | null;
  version: number;
  updatedAt: number;
}

export interface NewCall {
  id?: string;
  agentId: string;
  /** The agent version the call runs; null or absent: the draft. */
  agentVersionId?: string | null;
  type: Call['type'];
  /** `pending` (waits for a slot) or `registered` (inbound, being routed). */
  status: string;
  phoneFrom: string;
  phoneTo: string;
  leadName: string;
  leadEmail?: string | null;
  leadTimezone?: string | null;
  variables?: Record<string, string | number | boolean>;
  metadata?: Record<string, unknown>;
  settings?: CallSettings;
  webhookUrl?: string | null;
  batchCallId?: string | null;
  batchTaskId?: string | null;
  /** Take a slot at creation (inbound calls); the caller checked there is one. */
  holdsSlot?: boolean;
  node?: string | null;
  ringingAt?: number | null;
}

/** Fields a move may set. */
export interface CallPatch {
  status?: string;
  agentId?: string;
  agentVersionId?: string | null;
  endCallReason?: string | null;
  customEndCallReason?: string | null;
  errorMessage?: string | null;
  variables?: Record<string, string | number | boolean>;
  metadata?: Record<string, unknown>;
  settings?: CallSettings;
  state?: unknown;
  analysis?: unknown;
  quality?: unknown;
  transcript?: string;
  callSid?: string | null;
  node?: string | null;
  holdsSlot?: boolean;
  afterCallPending?: boolean;
  ringingAt?: number;
  answeredAt?: number;
  endedAt?: number;
  durationSeconds?: number;
}

/** One compare-and-set move of `updateMany`: `patch` applies if the call is in one of `from`. */
export interface CallMove {
  workspaceId: string;
  id: string;
  from: readonly string[];
  patch: CallPatch;
  /** Also only while the call waits for its after-the-call work (no one else finished it). */
  whileAfterCall?: boolean;
}

export interface CallFilters {
  agentId?: string;
  status?: string;
  /** Calls that began (ringing, or answered for inbound) at or after. */
  fromDate?: number;
  /** Calls that ended at or before. */
  toDate?: number;
  durationMin?: number;
  durationMax?: number;
  /** Exact E.164, caller or callee. */
  leadPhone?: string;
  batchCallId?: string;
  limit: number;
  offset: number;
}
