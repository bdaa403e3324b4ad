import type { Static } from '@sinclair/typebox';
import { toIso } from '../../core/index.ts';
import { DAY_MS } from '../../core/index.ts';
import type { AnalyticsData, CallGroup } from '../../store/index.ts';
import { SERIES_REASONS, SERIES_STATUSES, type AnalyticsReport } from './schemas.ts';

// The published report sections, folded from the store's grouped rows (a few per day and status,
// per agent, per action: never one per call). Every figure is rounded to an integer, as
// published; percentages of change compare with the period of the same length just before the
// range (100 when that period had nothing and the range has something).

type Report = Static<typeof AnalyticsReport>;

/** Percent change from `previous` to `current`, rounded. */
export function change(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) / previous) * 100);
}

const percent = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 100));
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

interface Sums {
  calls: number;
  seconds: number;
  answered: number;
  positive: number;
  judged: number;
}

function sum(groups: readonly CallGroup[]): Sums {
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

/** Adds `n` to `map[key]`. */
function add(map: Map<string, number>, key: string, n: number) {
  map.set(key, (map.get(key) ?? 0) + n);
}

const byValue =
  <T>(value: (t: T) => number, name: (t: T) => string) =>
  (a: T, b: T) =>
    value(b) - value(a) || name(a).localeCompare(name(b));

export function buildReport(data: AnalyticsData, from: number, to: number): Report {
  const days: number[] = [];
  for (let d = Math.floor(from / DAY_MS); d <= Math.floor(to / DAY_MS); d++) days.push(d);

  const current = data.calls.filter((g) => g.day !== null);
  const previous = data.calls.filter((g) => g.day === null);
  const cur = sum(current);
  const prev = sum(previous);
  const perDay = new Map<number, CallGroup[]>();
  for (const g of current) {
    const list = perDay.get(g.day!) ?? [];
    list.push(g);
    perDay.set(g.day!, list);
  }
  const dayGroups = (day: number) => perDay.get(day) ?? [];

  // Statuses
  const statusNow = new Map<string, number>();
  const statusBefore = new Map<string, number>();
  for (const g of current) add(statusNow, g.status, g.calls);
  for (const g of previous) add(statusBefore, g.status, g.calls);
  const statuses = [...new Set([...statusNow.keys(), ...statusBefore.keys()])];

  // End reasons (calls that ended with one)
  const reasonNow = new Map<string, number>();
  for (const g of current) if (g.endCallReason !== null) add(reasonNow, g.endCallReason, g.calls);
  const reasonTotal = [...reasonNow.values()].reduce((a, b) => a + b, 0);

  const counts = (keys: readonly string[], entries: Iterable<[string, number]>) => {
    const row: Record<string, number> = {};
    for (const k of keys) row[k] = 0;
    for (const [k, v] of entries) row[k] = (row[k] ?? 0) + v;
    return row;
  };

  // Actions
  const actionNow = new Map<string, number>();
  const actionBefore = new Map<string, number>();
  const actionDays = new Map<string, Map<number, number>>();
  for (const a of data.actions) {
    if (a.day === null) {
      add(actionBefore, a.name, a.calls);
      continue;
    }
    add(actionNow, a.name, a.calls);
    const perName = actionDays.get(a.name) ?? new Map<number, number>();
    perName.set(a.day, (perName.get(a.day) ?? 0) + a.calls);
    actionDays.set(a.name, perName);
  }

  // Agents
  interface AgentFigures {
    name: string;
    calls: number;
    seconds: number;
    successes: number;
    prevCalls: number;
    prevSeconds: number;
    prevSuccesses: number;
  }
  const agents = new Map<string, AgentFigures>();
  for (const a of data.agents) {
    const f = agents.get(a.agentId) ?? {
      name: '',
      calls: 0,
      seconds: 0,
      successes: 0,
      prevCalls: 0,
      prevSeconds: 0,
      prevSuccesses: 0,
    };
    if (a.agentName !== null) f.name = a.agentName;
    if (a.previous) {
      f.prevCalls += a.calls;
      f.prevSeconds += a.seconds;
      f.prevSuccesses += a.successes;
    } else {
      f.calls += a.calls;
      f.seconds += a.seconds;
      f.successes += a.successes;
    }
    agents.set(a.agentId, f);
  }
  const active = [...agents.entries()].filter(([, f]) => f.calls > 0);
  const rate = (successes: number, calls: number) => (calls === 0 ? 0 : (successes / calls) * 100);
  const average = (s: Sums) => (s.answered === 0 ? 0 : s.seconds / s.answered);
  const positiveShare = (s: Sums) => (s.judged === 0 ? 0 : (s.positive / s.judged) * 100);

  return {
    from_date: toIso(from),
    to_date: toIso(to),
    executed_actions: {
      items: [...actionNow.entries()]
        .sort(
          byValue(
            ([, v]) => v,
            ([k]) => k,
          ),
        )
        .map(([name, value]) => ({
          name,
          value,
          series: days.map((d) => ({ date: dateOf(d), value: actionDays.get(name)?.get(d) ?? 0 })),
          percentage_change: change(value, actionBefore.get(name) ?? 0),
        })),
    },
    assistant_performance: {
      by_minutes_used: [...active]
        .sort(
          byValue(
            ([, f]) => f.seconds,
            ([id]) => id,
          ),
        )
        .map(([id, f]) => ({
          model_id: id,
          name: f.name,
          minutes_used: Math.round(f.seconds / 60),
          percentage_change: change(f.seconds, f.prevSeconds),
        })),
      by_calls_made: [...active]
        .sort(
          byValue(
            ([, f]) => f.calls,
            ([id]) => id,
          ),
        )
        .map(([id, f]) => ({
          model_id: id,
          name: f.name,
          calls_made: f.calls,
          percent_change: change(f.calls, f.prevCalls),
        })),
      by_success_rate: [...active]
        .sort(
          byValue(
            ([, f]) => rate(f.successes, f.calls),
            ([id]) => id,
          ),
        )
        .map(([id, f]) => ({
          model_id: id,
          name: f.name,
          success_rate: Math.round(rate(f.successes, f.calls)),
          percentage_change: change(rate(f.successes, f.calls), rate(f.prevSuccesses, f.prevCalls)),
        })),
    },
    call_status_stat: {
      items: statuses
        .map((status) => ({
          status,
          value: statusNow.get(status) ?? 0,
          percentage: percent(statusNow.get(status) ?? 0, cur.calls),
          percentage_change: change(statusNow.get(status) ?? 0, statusBefore.get(status) ?? 0),
        }))
        .sort(
          byValue(
            (i) => i.value,
            (i) => i.status,
          ),
        ),
      series: days.map((d) => ({
        ...counts(
          SERIES_STATUSES,
          dayGroups(d).map((g): [string, number] => [g.status, g.calls]),
        ),
        date: dateOf(d),
      })),
    },
    recent_call_history: {
      items: data.recent.map((c) => ({
        call_id: c.id,
        call_status: c.status,
        duration: c.durationSeconds ?? 0,
        agent_name: c.agentName ?? '',
        model_id: c.agentId,
        lead_phone_number: c.type === 'inbound' ? c.phoneFrom : c.phoneTo,
        created_at: toIso(c.createdAt),
      })),
    },
    duration_metrics: {
      total_minutes: Math.round(cur.seconds / 60),
      average_duration: Math.round(average(cur)),
      total_calls: cur.calls,
      series: days.map((d) => {
        const s = sum(dayGroups(d));
        return {
          date: dateOf(d),
          total_minutes: Math.round(s.seconds / 60),
          average_duration: Math.round(average(s)),
          total_calls: s.calls,
        };
      }),
      total_minutes_percentage_change: change(cur.seconds, prev.seconds),
      total_duration_percentage_change: change(average(cur), average(prev)),
      total_calls_percentage_change: change(cur.calls, prev.calls),
    },
    end_call_reason_stat: {
      items: [...reasonNow.entries()]
        .sort(
          byValue(
            ([, v]) => v,
            ([k]) => k,
          ),
        )
        .map(([reason, value]) => ({ reason, value, percentage: percent(value, reasonTotal) })),
      series: days.map((d) => ({
        ...counts(
          SERIES_REASONS,
          dayGroups(d)
            .filter((g) => g.endCallReason !== null)
            .map((g): [string, number] => [g.endCallReason!, g.calls]),
        ),
        date: dateOf(d),
      })),
    },
    sentiment_stat: {
      positive_percentage: Math.round(positiveShare(cur)),
      series: days.map((d) => {
        const s = sum(dayGroups(d));
        return { date: dateOf(d), positive: s.positive, total: s.judged };
      }),
      positive_percentage_change: change(positiveShare(cur), positiveShare(prev)),
    },
  };
}
