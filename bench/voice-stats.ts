// Measuring helpers of the `voice` case: a sub-millisecond clock on the same scale as Date.now()
// (the sim's 20 ms grid is on Date.now(), whose whole milliseconds are too coarse for jitter), a
// fixed-size histogram that records on the media path without allocating, and percentiles.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let offset = Date.now() - performance.now();

/**
 * Re-aligns `preciseNow()` with Date.now(): waits for a few edges of Date.now()'s millisecond
 * (a busy wait of about 3 ms) and takes the mean offset at them.
 */
export function calibratePreciseClock(): void {
  let sum = 0;
  const edges = 3;
  for (let i = 0; i < edges; i += 1) {
    const start = Date.now();
    let now = start;
    let perf = performance.now();
    while (now === start) {
      perf = performance.now();
      now = Date.now();
    }
    sum += now - perf;
  }
  offset = sum / edges;
}

/** Milliseconds since the epoch, fractional, on Date.now()'s scale. */
export const preciseNow = (): number => performance.now() + offset;

/** A performance.now() time (e.g. a PerformanceEntry's startTime) on preciseNow()'s scale. */
export const toPrecise = (perfMs: number): number => perfMs + offset;

/** Counts values in fixed buckets from `minMs` to `maxMs` (beyond: the last bucket, exact max kept). */
export class Histogram {
  readonly #bucketMs: number;
  readonly #minMs: number;
  readonly #counts: Uint32Array;
  count = 0;
  max = -Infinity;
  sum = 0;

  constructor(bucketMs = 0.05, minMs = -5, maxMs = 500) {
    this.#bucketMs = bucketMs;
    this.#minMs = minMs;
    this.#counts = new Uint32Array(Math.ceil((maxMs - minMs) / bucketMs) + 1);
  }

  record(ms: number): void {
    const index = Math.floor((ms - this.#minMs) / this.#bucketMs);
    this.#counts[index < 0 ? 0 : index >= this.#counts.length ? this.#counts.length - 1 : index]! += 1;
    this.count += 1;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  /** How many values were above `ms`. */
  above(ms: number): number {
    const from = Math.floor((ms - this.#minMs) / this.#bucketMs) + 1;
    let n = 0;
    for (let i = Math.max(0, from); i < this.#counts.length; i += 1) n += this.#counts[i]!;
    return n;
  }

  /** Nearest-rank percentile (the upper edge of its bucket, at most the max); NaN when empty. */
  percentile(p: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.count));
    let seen = 0;
    for (let i = 0; i < this.#counts.length; i += 1) {
      seen += this.#counts[i]!;
      if (seen >= rank) return Math.min(this.max, this.#minMs + (i + 1) * this.#bucketMs);
    }
    return this.max;
  }

  reset(): void {
    this.#counts.fill(0);
    this.count = 0;
    this.max = -Infinity;
    this.sum = 0;
  }
}

/** Nearest-rank percentile of unsorted values; NaN when empty. */
export function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const mean = (values: readonly number[]): number =>
  values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;

/** A number for a table: fixed digits, `—` for NaN. */
export const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '—');

let gcFunction: (() => void) | null = null;

/** A full garbage collection (node's `--expose-gc` gc, enabled here if the process lacks it). */
export function collectGarbage(): void {
  if (!gcFunction) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (exposed) gcFunction = exposed;
    else {
      setFlagsFromString('--expose-gc');
      gcFunction = runInNewContext('gc') as () => void;
    }
  }
  gcFunction();
  gcFunction();
}
