import { change, dateOf, sum, type Sums } from './figures.ts';
import type { Periods } from './periods.ts';
import type { SentimentStat } from './report.ts';

// `sentiment_stat`: the share of judged calls whose user sentiment was positive, per day and
// against the period before.

/** Positive calls among the judged ones, in percent (not rounded). */
const positiveShare = (s: Sums) => (s.judged === 0 ? 0 : (s.positive / s.judged) * 100);

export function sentimentStat(p: Periods): SentimentStat {
  return {
    positive_percentage: Math.round(positiveShare(p.now)),
    series: p.days.map((d) => {
      const s = sum(p.dayGroups(d));
      return { date: dateOf(d), positive: s.positive, total: s.judged };
    }),
    positive_percentage_change: change(positiveShare(p.now), positiveShare(p.before)),
  };
}
