import { DAY_MS } from '../../core/index.ts';
import type { AnalyticsData, CallGroup } from '../analytics.ts';
import { sum, type Sums } from './figures.ts';
import type { DayCounts } from './report.ts';

// The call groups split by period: the range's days, its groups per day and in all, the period
// before it, and the counts of a day by key.

export interface Periods {
  /** Every UTC day of the range, in order (a series has one entry per day). */
  days: number[];
  /** The range's call groups, and the previous period's. */
  current: CallGroup[];
  previous: CallGroup[];
  /** Their sums. */
  now: Sums;
  before: Sums;
  /** The range's call groups of one day. */
  dayGroups(day: number): CallGroup[];
}

/** The days from `from` to `to` (both inclusive), as UTC day numbers. */
export function daysOf(from: number, to: number): number[] {
  const days: number[] = [];
  for (let d = Math.floor(from / DAY_MS); d <= Math.floor(to / DAY_MS); d++) days.push(d);
  return days;
}

export function periodsOf(data: AnalyticsData, from: number, to: number): Periods {
  const current = data.calls.filter((g) => g.day !== null);
  const previous = data.calls.filter((g) => g.day === null);
  const perDay = new Map<number, CallGroup[]>();
  for (const g of current) {
    const list = perDay.get(g.day!) ?? [];
    list.push(g);
    perDay.set(g.day!, list);
  }
  return {
    days: daysOf(from, to),
    current,
    previous,
    now: sum(current),
    before: sum(previous),
    dayGroups: (day) => perDay.get(day) ?? [],
  };
}

/** One day's counts: every one of `keys` (0 when absent), plus any other key the entries name. */
export function dayCounts(
  date: string,
  keys: readonly string[],
  entries: Iterable<[string, number]>,
): DayCounts {
  const row: Record<string, number> = {};
  for (const k of keys) row[k] = 0;
  for (const [k, v] of entries) row[k] = (row[k] ?? 0) + v;
  return { ...row, date };
}
