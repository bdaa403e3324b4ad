import { useMemo } from 'preact/hooks';
import type { paths } from '../../../sdk/index.ts';
import { AgentFilter, loadAgents } from '../agent-choice.tsx';
import { BarChart, ColumnChart, type Datum } from '../chart.tsx';
import { ChoiceFilter, DateRange, dayMs, FilterForm, filterErrors, useFilters } from '../filters.tsx';
import { href } from '../router.ts';
import { parley, unwrap } from '../session.ts';
import { optional, Table } from '../table.tsx';
import { Counter, Loading, Page, useLoad, when } from '../ui.tsx';

// Analytics: `GET /v2/analytics` over a date range (default: the last 7 days), for all agents or
// one, and for one type of call or all. The totals as counters, calls and minutes per day as
// columns, the breakdowns (status, end reason, actions run) as bars, the agents and the most
// recent calls as tables. Every chart also gives its numbers as a table.

type Query = NonNullable<paths['/v2/analytics']['get']['parameters']['query']>;
type CallType = NonNullable<Query['type_of_call']>;
type Report = paths['/v2/analytics']['get']['responses'][200]['content']['application/json']['response'];

const TYPE_LABELS: Record<Exclude<CallType, 'web'>, string> = {
  outbound: 'Outbound',
  inbound: 'Inbound',
  widget: 'Web (widget)',
};

interface Filters {
  /** `yyyy-mm-dd`, or empty. */
  from: string;
  to: string;
  modelId: string;
  type: Exclude<CallType, 'web'> | '';
}

const NO_FILTERS: Filters = { from: '', to: '', modelId: '', type: '' };

/** Local midnight of a `yyyy-mm-dd` day (`endOf`: its last ms), as ISO 8601 with a zone. */
function dayIso(day: string, endOf: boolean): string | undefined {
  const ms = dayMs(day, endOf);
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function queryOf(f: Filters): Query {
  const from = dayIso(f.from, false);
  let to = dayIso(f.to, true);
  // The end of today is still to come: ask up to now instead.
  if (to !== undefined && Date.parse(to) > Date.now()) to = new Date().toISOString();
  return {
    ...(from !== undefined ? { from_date: from } : {}),
    ...(to !== undefined ? { to_date: to } : {}),
    ...(f.modelId ? { model_id: f.modelId } : {}),
    ...(f.type ? { type_of_call: f.type } : {}),
  };
}

const FILTER_FIELDS = ['model_id', 'type_of_call', 'to_date', 'from_date'] as const;

const fmt = (n: number) => n.toLocaleString();

/** `+12 %` / `−5 %` against the period of the same length before, or nothing for 0. */
function change(pct: number): string {
  if (pct === 0) return 'no change';
  return `${pct > 0 ? '+' : '−'}${fmt(Math.abs(pct))} % on the period before`;
}

/** `2026-11-29` (a UTC day) as "Nov 29". */
function dayLabel(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime())
    ? date
    : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** `no-answer`, `agent_goodbye` → "No answer", "Agent goodbye". */
function words(key: string): string {
  if (key === 'undefined' || key === '') return 'None given';
  const spaced = key.replace(/[_-]+/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function durationText(seconds: number): string {
  if (seconds < 60) return `${fmt(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

export function Analytics() {
  const { draft, applied, set, apply, clear } = useFilters(NO_FILTERS);
  const agents = useLoad(loadAgents, []);
  const report = useLoad(
    () => unwrap(parley().api.GET('/v2/analytics', { params: { query: queryOf(applied) } })),
    [applied],
  );
  const { errors, refused } = filterErrors(report.error, FILTER_FIELDS);

  return (
    <Page title="Analytics">
      <FilterForm label="Choose the range" onApply={apply} onReset={clear} apply="Show" reset="Last 7 days">
        <DateRange
          prefix="an"
          from={draft.from}
          to={draft.to}
          onValue={set}
          errors={{ from: errors.from_date, to: errors.to_date }}
          hints={{ from: 'Empty: 7 days before the end.', to: 'Empty: now. At most 120 days in all.' }}
        />
        <AgentFilter
          id="an-agent"
          agents={agents}
          value={draft.modelId}
          onValue={(v) => set('modelId', v)}
          error={errors.model_id}
        />
        <ChoiceFilter
          label="Type of call"
          id="an-type"
          any="All types"
          labels={TYPE_LABELS}
          value={draft.type}
          onValue={(v) => set('type', v)}
          error={errors.type_of_call}
        />
      </FilterForm>
      {refused ? (
        <p>No report: the API refused the range (see the marked field).</p>
      ) : (
        <Loading state={report}>{(r) => <ReportView report={r} />}</Loading>
      )}
    </Page>
  );
}

function ReportView(props: { report: Report }) {
  const r = props.report;
  const d = r.duration_metrics;
  const perDay = useMemo<Datum[]>(
    () => d.series.map((s) => ({ label: dayLabel(s.date), value: s.total_calls })),
    [d.series],
  );
  const minutesPerDay = useMemo<Datum[]>(
    () => d.series.map((s) => ({ label: dayLabel(s.date), value: s.total_minutes })),
    [d.series],
  );
  const byStatus = r.call_status_stat.items
    .filter((i) => i.value > 0)
    .map((i) => ({ label: words(i.status), value: i.value }));
  const byReason = r.end_call_reason_stat.items
    .filter((i) => i.value > 0)
    .map((i) => ({ label: words(i.reason), value: i.value }));
  const actions = r.executed_actions.items.map((i) => ({ label: i.name, value: i.value }));
  const actionRuns = r.executed_actions.items.reduce((sum, i) => sum + i.value, 0);
  const perf = r.assistant_performance;
  const agentRows = perf.by_calls_made.map((a) => ({
    ...a,
    minutes: perf.by_minutes_used.find((m) => m.model_id === a.model_id)?.minutes_used ?? 0,
    success: perf.by_success_rate.find((m) => m.model_id === a.model_id)?.success_rate,
  }));
  const sentiment = r.sentiment_stat;
  const analysed = sentiment.series.reduce((sum, s) => sum + s.total, 0);

  return (
    <>
      <p>
        From {when(r.from_date)} to {when(r.to_date)}.
      </p>
      <h2>Totals</h2>
      <div class="counters">
        <Counter value={fmt(d.total_calls)}>
          calls
          <small class="hint"> {change(d.total_calls_percentage_change)}</small>
        </Counter>
        <Counter value={fmt(d.total_minutes)}>
          minutes
          <small class="hint"> {change(d.total_minutes_percentage_change)}</small>
        </Counter>
        <Counter value={durationText(d.average_duration)}>
          average answered call
          <small class="hint"> {change(d.total_duration_percentage_change)}</small>
        </Counter>
        <Counter value={analysed > 0 ? `${fmt(sentiment.positive_percentage)} %` : '—'}>
          positive callers
          <small class="hint">
            {' '}
            {analysed > 0 ? `of ${fmt(analysed)} analysed calls` : 'no call analysed'}
          </small>
        </Counter>
        <Counter value={fmt(actionRuns)}>action runs</Counter>
      </div>
      {d.total_calls === 0 ? <p>No calls in this range.</p> : null}
      <h2>Calls per day</h2>
      <ColumnChart title="Calls per day" data={perDay} unit="calls" valueHeading="Calls" />
      <h2>Minutes per day</h2>
      <ColumnChart title="Minutes per day" data={minutesPerDay} unit="minutes" valueHeading="Minutes" />
      <h2>Calls by status</h2>
      <BarChart
        title="Calls by status"
        data={byStatus}
        unit="calls"
        labelHeading="Status"
        valueHeading="Calls"
      />
      <h2>How calls ended</h2>
      <BarChart
        title="Calls by end reason"
        data={byReason}
        unit="calls"
        labelHeading="End reason"
        valueHeading="Calls"
      />
      {actions.length > 0 ? (
        <>
          <h2>Actions run</h2>
          <BarChart
            title="Calls in which each action ran"
            data={actions}
            unit="calls"
            labelHeading="Action"
            valueHeading="Calls"
          />
        </>
      ) : null}
      <h2>Agents</h2>
      {agentRows.length === 0 ? (
        <p>No agent had calls in this range.</p>
      ) : (
        <Table label="Agents" columns={['Agent', 'Calls', 'Minutes', ...optional('Goal met')]}>
          {agentRows.map((a) => (
            <tr key={a.model_id}>
              <td>
                {a.name ? (
                  <a href={href('agents', a.model_id)}>{a.name}</a>
                ) : (
                  <span class="hint">deleted agent</span>
                )}
              </td>
              <td>{fmt(a.calls_made)}</td>
              <td>{fmt(a.minutes)}</td>
              <td class="optional">{a.success === undefined ? '—' : `${fmt(a.success)} %`}</td>
            </tr>
          ))}
        </Table>
      )}
      <h2>Recent calls</h2>
      {r.recent_call_history.items.length === 0 ? (
        <p>None.</p>
      ) : (
        <Table
          label="Recent calls"
          columns={['Placed', 'Agent', 'Status', ...optional('Number', 'Duration')]}
        >
          {r.recent_call_history.items.map((c) => (
            <tr key={c.call_id}>
              <td>
                <a href={href('calls', c.call_id)}>{when(c.created_at)}</a>
              </td>
              <td>{c.agent_name || '—'}</td>
              <td>{words(c.call_status)}</td>
              <td class="optional">{c.lead_phone_number || '—'}</td>
              <td class="optional">{durationText(c.duration)}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
