// The analytics report as published (`GET /v2/analytics`): its sections, as plain types the
// store's fold produces (src/api/analytics checks them against its schema).

/** A UTC day (YYYY-MM-DD) and a count per key (status or end reason) of that day. */
export interface DayCounts {
  date: string;
  [key: string]: string | number;
}

/** The keys every day of a series shows, 0 when the day had none: statuses and end reasons. */
export interface SeriesKeys {
  statuses: readonly string[];
  reasons: readonly string[];
}

export interface ExecutedActions {
  items: {
    name: string;
    value: number;
    series: { date: string; value: number }[];
    percentage_change: number;
  }[];
}

export interface AssistantPerformance {
  by_minutes_used: { model_id: string; name: string; minutes_used: number; percentage_change: number }[];
  by_calls_made: { model_id: string; name: string; calls_made: number; percent_change: number }[];
  by_success_rate: { model_id: string; name: string; success_rate: number; percentage_change: number }[];
}

export interface CallStatusStat {
  items: { status: string; value: number; percentage: number; percentage_change: number }[];
  series: DayCounts[];
}

export interface RecentCallHistory {
  items: {
    call_id: string;
    call_status: string;
    duration: number;
    agent_name: string;
    model_id: string;
    lead_phone_number: string;
    created_at: string;
  }[];
}

export interface DurationMetrics {
  total_minutes: number;
  average_duration: number;
  total_calls: number;
  series: { date: string; total_minutes: number; average_duration: number; total_calls: number }[];
  total_minutes_percentage_change: number;
  total_duration_percentage_change: number;
  total_calls_percentage_change: number;
}

export interface EndCallReasonStat {
  items: { reason: string; value: number; percentage: number }[];
  series: DayCounts[];
}

export interface SentimentStat {
  positive_percentage: number;
  series: { date: string; positive: number; total: number }[];
  positive_percentage_change: number;
}

/** Every figure is an integer, as published. */
export interface CallReport {
  /** The range used (defaults applied), ISO date-times. */
  from_date: string;
  to_date: string;
  executed_actions: ExecutedActions;
  assistant_performance: AssistantPerformance;
  call_status_stat: CallStatusStat;
  recent_call_history: RecentCallHistory;
  duration_metrics: DurationMetrics;
  end_call_reason_stat: EndCallReasonStat;
  sentiment_stat: SentimentStat;
}
