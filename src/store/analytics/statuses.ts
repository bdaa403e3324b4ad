import { add, byValue, change, dateOf, percent } from './figures.ts';
import { dayCounts, type Periods } from './periods.ts';
import type { CallStatusStat } from './report.ts';

// `call_status_stat`: calls per status in the range (share and change), and per day.

export function callStatusStat(p: Periods, keys: readonly string[]): CallStatusStat {
  const now = new Map<string, number>();
  const before = new Map<string, number>();
  for (const g of p.current) add(now, g.status, g.calls);
  for (const g of p.previous) add(before, g.status, g.calls);
  const statuses = [...new Set([...now.keys(), ...before.keys()])];
  return {
    items: statuses
      .map((status) => ({
        status,
        value: now.get(status) ?? 0,
        percentage: percent(now.get(status) ?? 0, p.now.calls),
        percentage_change: change(now.get(status) ?? 0, before.get(status) ?? 0),
      }))
      .sort(
        byValue(
          (i) => i.value,
          (i) => i.status,
        ),
      ),
    series: p.days.map((d) =>
      dayCounts(
        dateOf(d),
        keys,
        p.dayGroups(d).map((g): [string, number] => [g.status, g.calls]),
      ),
    ),
  };
}
