import { average, change, dateOf, sum } from './figures.ts';
import type { Periods } from './periods.ts';
import type { DurationMetrics } from './report.ts';

// `duration_metrics`: minutes, mean duration and calls of the range, per day, and their changes.

export function durationMetrics(p: Periods): DurationMetrics {
  const { now, before } = p;
  return {
    total_minutes: Math.round(now.seconds / 60),
    average_duration: Math.round(average(now)),
    total_calls: now.calls,
    series: p.days.map((d) => {
      const s = sum(p.dayGroups(d));
      return {
        date: dateOf(d),
        total_minutes: Math.round(s.seconds / 60),
        average_duration: Math.round(average(s)),
        total_calls: s.calls,
      };
    }),
    total_minutes_percentage_change: change(now.seconds, before.seconds),
    total_duration_percentage_change: change(average(now), average(before)),
    total_calls_percentage_change: change(now.calls, before.calls),
  };
}
