// RTP sequence numbers (16 bits) and timestamps (32 bits) wrap around (RFC 3550 section 5.1), so
// "before" and "after" are decided by the signed distance modulo 2^16 or 2^32, never by comparing
// the numbers themselves.

/** Signed distance from sequence number `b` to `a` (a - b), in [-32768, 32767]. */
export const seqDiff = (a: number, b: number): number => ((a - b + 32768) & 0xffff) - 32768;

/** The sequence number `n` steps after `seq` (n may be negative). */
export const seqAdd = (seq: number, n: number): number => (seq + n) & 0xffff;

/** Signed distance from timestamp `b` to `a` (a - b), in [-2^31, 2^31 - 1]. */
export const tsDiff = (a: number, b: number): number => (a - b) | 0;

/** The timestamp `n` clock ticks after `ts` (n may be negative). */
export const tsAdd = (ts: number, n: number): number => (ts + n) >>> 0;
