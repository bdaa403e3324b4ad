import { add, dateOf, percent, ranked } from './figures.ts';
import { dayCounts, type Periods } from './periods.ts';
import type { EndCallReasonStat } from './report.ts';

// `end_call_reason_stat`: the range's calls that ended with a reason, per reason and per day.

export function endCallReasonStat(p: Periods, keys: readonly string[]): EndCallReasonStat {
  const now = new Map<string, number>();
  for (const g of p.current) if (g.endCallReason !== null) add(now, g.endCallReason, g.calls);
  const total = [...now.values()].reduce((a, b) => a + b, 0);
  return {
    items: ranked(now).map(([reason, value]) => ({ reason, value, percentage: percent(value, total) })),
    series: p.days.map((d) =>
      dayCounts(
        dateOf(d),
        keys,
        p
          .dayGroups(d)
          .filter((g) => g.endCallReason !== null)
          .map((g): [string, number] => [g.endCallReason!, g.calls]),
      ),
    ),
  };
}
