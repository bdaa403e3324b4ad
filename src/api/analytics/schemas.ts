import { Type, type TSchema } from '@sinclair/typebox';
import { CALL_STATUSES, END_CALL_REASONS } from '../../calls/index.ts';
import { NonEmptyString, StringEnum } from '../schemas/common.ts';

// `GET /v2/analytics`: the published query (from_date, to_date as ISO date-times, model_id,
// type_of_call) and the published report sections. Every figure is an integer, as published.

/** At most this many days between from_date and to_date (the published limit). */
export const MAX_RANGE_DAYS = 120;
/** Without from_date and to_date: the last 7 days. */
export const DEFAULT_RANGE_DAYS = 7;

export const TYPES_OF_CALL = ['inbound', 'outbound', 'widget', 'web'] as const;

export const AnalyticsQuery = Type.Object({
  from_date: Type.Optional(
    Type.String({
      format: 'date-time',
      description: `Start of the range (ISO 8601 date-time with a zone). Default: to_date minus ${DEFAULT_RANGE_DAYS} days; the range is at most ${MAX_RANGE_DAYS} days.`,
    }),
  ),
  to_date: Type.Optional(
    Type.String({ format: 'date-time', description: 'End of the range (ISO 8601 date-time). Default: now.' }),
  ),
  model_id: Type.Optional(NonEmptyString(100, 'Only the calls of this agent.')),
  type_of_call: Type.Optional(
    StringEnum(TYPES_OF_CALL, {
      description: 'Only calls of this type; `widget` (and its alias `web`) are web calls.',
    }),
  ),
});

/**
 * Status keys of a `call_status_stat.series` day: the published ones, then Parley's statuses
 * the published list lacks (`checking`, `queue` and `initiated` are never produced by Parley).
 */
export const SERIES_STATUSES: readonly string[] = [
  ...new Set([
    'completed',
    'hangup_on_voicemail',
    'busy',
    'no-answer',
    'failed',
    'left_voicemail',
    'in-progress',
    'checking',
    'paused',
    'queue',
    'initiated',
    'ringing',
    ...CALL_STATUSES,
  ]),
];

/**
 * Reason keys of an `end_call_reason_stat.series` day: the published ones, then Parley's reasons
 * the published list lacks (`idle_time_exceeded`, `goodbye_detected` and `user_disconnected`
 * are never produced by Parley).
 */
export const SERIES_REASONS: readonly string[] = [
  ...new Set([
    'voicemail',
    'human_goodbye',
    'agent_goodbye',
    'human_pick_up_cut_off',
    'max_duration',
    'idle_time_exceeded',
    'goodbye_detected',
    'user_disconnected',
    'voicemail_message_left',
    ...END_CALL_REASONS,
  ]),
];

const Int = Type.Integer();
const Day = Type.String({ description: 'UTC day, YYYY-MM-DD.' });
const Change = Type.Integer({
  description:
    'Change against the period of the same length just before the range, in percent (100 when that period had none).',
});

const countsOf = (keys: readonly string[]) => {
  const props: Record<string, TSchema> = { date: Day };
  for (const k of keys) props[k] = Int;
  return Type.Object(props);
};

export const AnalyticsReport = Type.Object({
  from_date: Type.String({ format: 'date-time', description: 'The range used (defaults applied).' }),
  to_date: Type.String({ format: 'date-time' }),
  executed_actions: Type.Object({
    items: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The action name.' }),
        value: Type.Integer({ description: 'Calls in which the action ran.' }),
        series: Type.Array(Type.Object({ date: Day, value: Int })),
        percentage_change: Change,
      }),
    ),
  }),
  assistant_performance: Type.Object({
    by_minutes_used: Type.Array(
      Type.Object({
        model_id: Type.String(),
        name: Type.String(),
        minutes_used: Int,
        percentage_change: Change,
      }),
    ),
    by_calls_made: Type.Array(
      Type.Object({ model_id: Type.String(), name: Type.String(), calls_made: Int, percent_change: Change }),
    ),
    by_success_rate: Type.Array(
      Type.Object({
        model_id: Type.String(),
        name: Type.String(),
        success_rate: Type.Integer({
          description: 'Percent of the calls whose analysis found the goal met.',
        }),
        percentage_change: Change,
      }),
    ),
  }),
  call_status_stat: Type.Object({
    items: Type.Array(
      Type.Object({ status: Type.String(), value: Int, percentage: Int, percentage_change: Change }),
    ),
    series: Type.Array(countsOf(SERIES_STATUSES)),
  }),
  recent_call_history: Type.Object({
    items: Type.Array(
      Type.Object({
        call_id: Type.String(),
        call_status: Type.String(),
        duration: Type.Integer({ description: 'Seconds.' }),
        agent_name: Type.String(),
        model_id: Type.String(),
        lead_phone_number: Type.String(),
        created_at: Type.String({ format: 'date-time' }),
      }),
    ),
  }),
  duration_metrics: Type.Object({
    total_minutes: Int,
    average_duration: Type.Integer({ description: 'Seconds, over the calls that were answered.' }),
    total_calls: Int,
    series: Type.Array(
      Type.Object({ date: Day, total_minutes: Int, average_duration: Int, total_calls: Int }),
    ),
    total_minutes_percentage_change: Change,
    total_duration_percentage_change: Change,
    total_calls_percentage_change: Change,
  }),
  end_call_reason_stat: Type.Object({
    items: Type.Array(Type.Object({ reason: Type.String(), value: Int, percentage: Int })),
    series: Type.Array(countsOf(SERIES_REASONS)),
  }),
  sentiment_stat: Type.Object({
    positive_percentage: Type.Integer({
      description: 'Percent of the analysed calls whose user sentiment was positive.',
    }),
    series: Type.Array(Type.Object({ date: Day, positive: Int, total: Int })),
    positive_percentage_change: Change,
  }),
});
