import { DAY_MS } from '../../core/index.ts';
import type { CallGroup } from '../analytics.ts';

// The arithmetic the report's sections share: change and share in percent, sums of call groups,
// tallies by key, the ordering of ranked items, and a day's date.

/** Percent change from `previous` to `current`, rounded (100 when `previous` had none). */
export function change(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) / previous) * 100);
}

/** `part` of `whole` in percent, rounded; 0 when `whole` is. */
export const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 100));

/** A UTC day number as YYYY-MM-DD. */
export const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** What a set of call groups adds up to. */
export interface Sums {
  calls: number;
  seconds: number;
  answered: number;
  positive: number;
  judged: number;
}

export function sum(groups: readonly CallGroup[]): Sums {
  const s: Sums = { calls: 0, seconds: 0, answered: 0, positive: 0, judged: 0 };
  for (const g of groups) {
    s.calls += g.calls;
    s.seconds += g.seconds;
    s.answered += g.answered;
    s.positive += g.positive;
    s.judged += g.judged;
  }
  return s;
}

/** Mean duration in seconds of the answered calls (not rounded). */
export const average = (s: Sums) => (s.answered === 0 ? 0 : s.seconds / s.answered);

/** Adds `n` to `map[key]`. */
export function add<K>(map: Map<K, number>, key: K, n: number) {
  map.set(key, (map.get(key) ?? 0) + n);
}

/** Largest value first, then by name. */
export const byValue =
  <T>(value: (t: T) => number, name: (t: T) => string) =>
  (a: T, b: T) =>
    value(b) - value(a) || name(a).localeCompare(name(b));

/** Entries of a tally, largest first, then by key. */
export const ranked = (tally: Map<string, number>) =>
  [...tally.entries()].sort(
    byValue(
      ([, v]) => v,
      ([k]) => k,
    ),
  );
