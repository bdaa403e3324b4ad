import { toIso } from '../../core/index.ts';
import type { AnalyticsData } from '../analytics.ts';
import { executedActions } from './actions.ts';
import { assistantPerformance } from './agents.ts';
import { durationMetrics } from './duration.ts';
import { periodsOf } from './periods.ts';
import { endCallReasonStat } from './reasons.ts';
import { recentCallHistory } from './recent.ts';
import type { CallReport, SeriesKeys } from './report.ts';
import { sentimentStat } from './sentiment.ts';
import { callStatusStat } from './statuses.ts';

// The report folded from the store's grouped rows (a few per day and status, per agent, per
// action: never one per call). Every figure is rounded to an integer, as published; percentages
// of change compare with the period of the same length just before the range (100 when that
// period had nothing and the range has something).

/** The report of `data`, the analytics of the range [from, to] (ms, both inclusive). */
export function buildCallReport(
  data: AnalyticsData,
  range: { from: number; to: number },
  keys: SeriesKeys,
): CallReport {
  const periods = periodsOf(data, range.from, range.to);
  return {
    from_date: toIso(range.from),
    to_date: toIso(range.to),
    executed_actions: executedActions(data.actions, periods.days),
    assistant_performance: assistantPerformance(data.agents),
    call_status_stat: callStatusStat(periods, keys.statuses),
    recent_call_history: recentCallHistory(data.recent),
    duration_metrics: durationMetrics(periods),
    end_call_reason_stat: endCallReasonStat(periods, keys.reasons),
    sentiment_stat: sentimentStat(periods),
  };
}
