import { useMemo, useState } from 'preact/hooks';
import { allAgents, type components, type paths } from '../../../sdk/index.ts';
import { BarChart, ColumnChart, type Datum } from '../chart.tsx';
import { href } from '../router.ts';
import { describe, fieldError, parley, unwrap } from '../session.ts';
import { Field, Loading, Page, useLoad, when } from '../ui.tsx';

// Analytics: `GET /v2/analytics` over a date range (default: the last 7 days), for all agents or
// one, and for one type of call or all. The totals as counters, calls and minutes per day as
// columns, the breakdowns (status, end reason, actions run) as bars, the agents and the most
// recent calls as tables. Every chart also gives its numbers as a table.

type Query = NonNullable<paths['/v2/analytics']['get']['parameters']['query']>;
type CallType = NonNullable<Query['type_of_call']>;
type Report = paths['/v2/analytics']['get']['responses'][200]['content']['application/json']['response'];
type Agent = components['schemas']['Agent'];

const TYPE_LABELS: Record<Exclude<CallType, 'web'>, string> = {
  outbound: 'Outbound',
  inbound: 'Inbound',
  widget: 'Web (widget)',
};

function isType(v: string): v is Exclude<CallType, 'web'> {
  return Object.hasOwn(TYPE_LABELS, v);
}

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
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = endOf ? new Date(y, m - 1, d + 1).getTime() - 1 : new Date(y, m - 1, d).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
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
type FilterField = (typeof FILTER_FIELDS)[number];

function filterErrors(err: unknown): Partial<Record<FilterField, string>> {
  for (const field of FILTER_FIELDS) {
    const message = fieldError(err, field);
    if (message) return { [field]: message };
  }
  return {};
}

function invalid(id: string, error: string | undefined) {
  return error ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {};
}

async function loadAgents(): Promise<Agent[]> {
  const agents: Agent[] = [];
  for await (const agent of allAgents(parley(), {}, 1000)) agents.push(agent);
  return agents.sort((a, b) => a.name.localeCompare(b.name));
}

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
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const agents = useLoad(loadAgents, []);
  const report = useLoad(
    () => unwrap(parley().api.GET('/v2/analytics', { params: { query: queryOf(filters) } })),
    [filters],
  );
  const errors = filterErrors(report.error);
  const claimed = Object.keys(errors).length > 0;
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));

  return (
    <Page title="Analytics">
      <form
        class="filters"
        aria-label="Choose the range"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...draft });
        }}
      >
        <Field label="From" id="an-from" error={errors.from_date} hint="Empty: 7 days before the end.">
          <input
            id="an-from"
            type="date"
            value={draft.from}
            onInput={(e) => set('from', e.currentTarget.value)}
            aria-describedby={['an-from-hint', errors.from_date ? 'an-from-error' : '']
              .filter(Boolean)
              .join(' ')}
            aria-invalid={errors.from_date ? 'true' : undefined}
          />
        </Field>
        <Field label="To" id="an-to" error={errors.to_date} hint="Empty: now. At most 120 days in all.">
          <input
            id="an-to"
            type="date"
            value={draft.to}
            onInput={(e) => set('to', e.currentTarget.value)}
            aria-describedby={['an-to-hint', errors.to_date ? 'an-to-error' : ''].filter(Boolean).join(' ')}
            aria-invalid={errors.to_date ? 'true' : undefined}
          />
        </Field>
        <Field
          label="Agent"
          id="an-agent"
          error={errors.model_id}
          {...(agents.error !== undefined ? { hint: `Agents not loaded: ${describe(agents.error)}` } : {})}
        >
          <select
            id="an-agent"
            value={draft.modelId}
            onChange={(e) => set('modelId', e.currentTarget.value)}
            {...invalid('an-agent', errors.model_id)}
          >
            <option value="">All agents</option>
            {(agents.data ?? []).map((a) => (
              <option key={a.model_id} value={a.model_id}>
                {a.name || a.model_id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Type of call" id="an-type" error={errors.type_of_call}>
          <select
            id="an-type"
            value={draft.type}
            onChange={(e) => {
              const v = e.currentTarget.value;
              set('type', isType(v) ? v : '');
            }}
            {...invalid('an-type', errors.type_of_call)}
          >
            <option value="">All types</option>
            {(Object.keys(TYPE_LABELS) as Exclude<CallType, 'web'>[]).map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </Field>
        <div class="field">
          <div class="actions">
            <button type="submit">Show</button>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters({ ...NO_FILTERS });
              }}
            >
              Last 7 days
            </button>
          </div>
        </div>
      </form>
      {claimed ? (
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
        <div>
          <strong>{fmt(d.total_calls)}</strong> calls
          <small class="hint"> {change(d.total_calls_percentage_change)}</small>
        </div>
        <div>
          <strong>{fmt(d.total_minutes)}</strong> minutes
          <small class="hint"> {change(d.total_minutes_percentage_change)}</small>
        </div>
        <div>
          <strong>{durationText(d.average_duration)}</strong> average answered call
          <small class="hint"> {change(d.total_duration_percentage_change)}</small>
        </div>
        <div>
          <strong>{analysed > 0 ? `${fmt(sentiment.positive_percentage)} %` : '—'}</strong> positive callers
          <small class="hint">
            {' '}
            {analysed > 0 ? `of ${fmt(analysed)} analysed calls` : 'no call analysed'}
          </small>
        </div>
        <div>
          <strong>{fmt(actionRuns)}</strong> action runs
        </div>
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
        <div class="table-wrap">
          <table aria-label="Agents">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Calls</th>
                <th scope="col">Minutes</th>
                <th scope="col" class="optional">
                  Goal met
                </th>
              </tr>
            </thead>
            <tbody>
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
            </tbody>
          </table>
        </div>
      )}
      <h2>Recent calls</h2>
      {r.recent_call_history.items.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="table-wrap">
          <table aria-label="Recent calls">
            <thead>
              <tr>
                <th scope="col">Placed</th>
                <th scope="col">Agent</th>
                <th scope="col">Status</th>
                <th scope="col" class="optional">
                  Number
                </th>
                <th scope="col" class="optional">
                  Duration
                </th>
              </tr>
            </thead>
            <tbody>
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
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
