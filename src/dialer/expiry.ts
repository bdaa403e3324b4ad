// Batches live seven days (voice-agent-api.md limits: "seven days unfinished, then canceled with
// queued recipients"). Counted from creation, not from trigger_timestamp, so a far-future trigger
// cannot keep a batch alive longer.

export const BATCH_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/** The instant a batch created at `createdAtMs` expires (reported as `expires_at`). */
export function expiresAt(createdAtMs: number): number {
  return createdAtMs + BATCH_LIFETIME_MS;
}

/** Expired from `expiresAt` on, inclusive: at exactly seven days no further call is placed. */
export function isExpired(createdAtMs: number, nowMs: number): boolean {
  return nowMs >= expiresAt(createdAtMs);
}
