import { useMemo, useState } from 'preact/hooks';
import { allAgents, ParleyError, type components, type paths } from '../../../sdk/index.ts';
import { href } from '../router.ts';
import { describe, fieldError, parley, unwrap } from '../session.ts';
import { Field, Loading, Page, Pager, useLoad, when } from '../ui.tsx';

// Webhook logs: one row per attempt to reach a receiver (post-call webhooks, inbound-call
// webhooks, custom actions), newest first, with the API's filters applied together from a form;
// and one attempt's page with its request and response, headers and bodies.

type ListQuery = NonNullable<paths['/v2/logs']['get']['parameters']['query']>;
type WebhookType = NonNullable<ListQuery['webhook_type']>;
type LogStatus = NonNullable<ListQuery['status']>;
type Agent = components['schemas']['Agent'];

const PAGE_SIZE = 20;

const TYPE_LABELS: Record<WebhookType, string> = {
  external_webhook: 'Post-call webhook',
  inbound_webhook: 'Inbound-call webhook',
  custom_action: 'Custom action',
};
const STATUS_LABELS: Record<LogStatus, string> = {
  success: 'Delivered',
  pending: 'Failed, retry follows',
  failed: 'Failed, given up',
};

function isType(v: string): v is WebhookType {
  return Object.hasOwn(TYPE_LABELS, v);
}
function isStatus(v: string): v is LogStatus {
  return Object.hasOwn(STATUS_LABELS, v);
}
const typeText = (t: string) => (isType(t) ? TYPE_LABELS[t] : t);
const statusText = (s: string) => (isStatus(s) ? STATUS_LABELS[s] : s);

interface Filters {
  type: WebhookType | '';
  status: LogStatus | '';
  callId: string;
  agentId: string;
  /** `yyyy-mm-dd` of an `<input type="date">`, or empty. */
  from: string;
  to: string;
  search: string;
}

const NO_FILTERS: Filters = { type: '', status: '', callId: '', agentId: '', from: '', to: '', search: '' };

/** Local midnight of a `yyyy-mm-dd` day, in ms since the epoch (`endOf`: its last ms). */
function dayMs(day: string, endOf: boolean): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = endOf ? new Date(y, m - 1, d + 1).getTime() - 1 : new Date(y, m - 1, d).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

function queryOf(f: Filters, page: number): ListQuery {
  const from = dayMs(f.from, false);
  const to = dayMs(f.to, true);
  const callId = f.callId.trim();
  const search = f.search.trim();
  return {
    page_number: page,
    page_size: PAGE_SIZE,
    ...(f.type ? { webhook_type: f.type } : {}),
    ...(f.status ? { status: f.status } : {}),
    ...(callId ? { call_id: callId } : {}),
    ...(f.agentId ? { assistant_id: f.agentId } : {}),
    ...(from !== undefined ? { from_date: from } : {}),
    ...(to !== undefined ? { to_date: to } : {}),
    ...(search ? { search } : {}),
  };
}

/** The query names of the filters, in the order a refusal is given to a field (never two). */
const FILTER_FIELDS = [
  'webhook_type',
  'status',
  'call_id',
  'assistant_id',
  'to_date',
  'from_date',
  'search',
  'page_number',
] as const;
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

export function Logs(props: { id?: string }) {
  return props.id ? <LogPage id={props.id} /> : <LogList />;
}

/** A status code in words: 200 OK; none when no answer came. */
function codeText(code: number | null): string {
  return code === null ? 'No answer' : String(code);
}

function durationText(ms: number): string {
  return ms < 1000 ? `${ms.toLocaleString()} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function LogList() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const agents = useLoad(loadAgents, []);
  const logs = useLoad(
    () => unwrap(parley().api.GET('/v2/logs', { params: { query: queryOf(filters, page) } })),
    [filters, page],
  );
  const names = useMemo(
    () => new Map((agents.data ?? []).map((a) => [a.model_id, a.name || a.model_id])),
    [agents.data],
  );
  const errors = filterErrors(logs.error);
  const claimed = Object.keys(errors).length > 0;
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const apply = (event: Event) => {
    event.preventDefault();
    setFilters({ ...draft });
    setPage(1);
  };
  const clear = () => {
    setDraft(NO_FILTERS);
    setFilters({ ...NO_FILTERS });
    setPage(1);
  };

  return (
    <Page title="Webhook logs">
      <form class="filters" onSubmit={apply} aria-label="Filter webhook logs" noValidate>
        <Field label="Kind" id="logs-type" error={errors.webhook_type}>
          <select
            id="logs-type"
            value={draft.type}
            onChange={(e) => {
              const v = e.currentTarget.value;
              set('type', isType(v) ? v : '');
            }}
            {...invalid('logs-type', errors.webhook_type)}
          >
            <option value="">Any kind</option>
            {(Object.keys(TYPE_LABELS) as WebhookType[]).map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Status" id="logs-status" error={errors.status}>
          <select
            id="logs-status"
            value={draft.status}
            onChange={(e) => {
              const v = e.currentTarget.value;
              set('status', isStatus(v) ? v : '');
            }}
            {...invalid('logs-status', errors.status)}
          >
            <option value="">Any status</option>
            {(Object.keys(STATUS_LABELS) as LogStatus[]).map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Agent"
          id="logs-agent"
          error={errors.assistant_id}
          {...(agents.error !== undefined ? { hint: `Agents not loaded: ${describe(agents.error)}` } : {})}
        >
          <select
            id="logs-agent"
            value={draft.agentId}
            onChange={(e) => set('agentId', e.currentTarget.value)}
            {...invalid('logs-agent', errors.assistant_id)}
          >
            <option value="">All agents</option>
            {(agents.data ?? []).map((a) => (
              <option key={a.model_id} value={a.model_id}>
                {a.name || a.model_id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Call ID" id="logs-call" error={errors.call_id}>
          <input
            id="logs-call"
            type="text"
            autocomplete="off"
            value={draft.callId}
            onInput={(e) => set('callId', e.currentTarget.value)}
            {...invalid('logs-call', errors.call_id)}
          />
        </Field>
        <Field label="From" id="logs-from" error={errors.from_date}>
          <input
            id="logs-from"
            type="date"
            value={draft.from}
            onInput={(e) => set('from', e.currentTarget.value)}
            {...invalid('logs-from', errors.from_date)}
          />
        </Field>
        <Field label="To" id="logs-to" error={errors.to_date}>
          <input
            id="logs-to"
            type="date"
            value={draft.to}
            onInput={(e) => set('to', e.currentTarget.value)}
            {...invalid('logs-to', errors.to_date)}
          />
        </Field>
        <Field label="URL or ID contains" id="logs-search" error={errors.search}>
          <input
            id="logs-search"
            type="search"
            maxLength={200}
            value={draft.search}
            onInput={(e) => set('search', e.currentTarget.value)}
            {...invalid('logs-search', errors.search)}
          />
        </Field>
        <div class="field">
          <div class="actions">
            <button type="submit">Apply filters</button>
            <button type="button" class="secondary" onClick={clear}>
              Clear
            </button>
          </div>
        </div>
      </form>
      {claimed ? (
        <p>No attempts shown: the API refused a filter (see the marked field).</p>
      ) : (
        <Loading state={logs}>
          {(data) =>
            data.items.length === 0 ? (
              <>
                <p>
                  {page > 1
                    ? 'No attempts on this page.'
                    : JSON.stringify(filters) === JSON.stringify(NO_FILTERS)
                      ? 'No webhook attempts yet. Each post-call webhook, inbound-call webhook and custom action request is listed here.'
                      : 'No attempts match these filters.'}
                </p>
                {page > 1 ? (
                  <Pager
                    offset={(page - 1) * PAGE_SIZE}
                    limit={PAGE_SIZE}
                    total={data.total}
                    onPage={(o) => setPage(Math.floor(o / PAGE_SIZE) + 1)}
                  />
                ) : null}
              </>
            ) : (
              <>
                <div class="table-wrap" aria-busy={logs.loading ? 'true' : undefined}>
                  <table aria-label="Webhook attempts">
                    <thead>
                      <tr>
                        <th scope="col">Time</th>
                        <th scope="col">Kind</th>
                        <th scope="col">Status</th>
                        <th scope="col">Answer</th>
                        <th scope="col" class="optional">
                          Attempt
                        </th>
                        <th scope="col" class="optional">
                          Took
                        </th>
                        <th scope="col" class="optional">
                          Agent
                        </th>
                        <th scope="col" class="optional">
                          URL
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.items.map((l) => (
                        <tr key={l.webhook_log_id}>
                          <td>
                            <a href={href('logs', l.webhook_log_id)}>{when(l.created_at)}</a>
                          </td>
                          <td>{typeText(l.webhook_type)}</td>
                          <td>{statusText(l.status)}</td>
                          <td>{codeText(l.response_status_code)}</td>
                          <td class="optional">{l.attempt_number}</td>
                          <td class="optional">{durationText(l.duration_ms)}</td>
                          <td class="optional">
                            {l.assistant_id ? (names.get(l.assistant_id) ?? l.assistant_id) : '—'}
                          </td>
                          <td class="optional break">{l.url}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  offset={(page - 1) * PAGE_SIZE}
                  limit={PAGE_SIZE}
                  total={data.total}
                  onPage={(o) => setPage(Math.floor(o / PAGE_SIZE) + 1)}
                />
              </>
            )
          }
        </Loading>
      )}
    </Page>
  );
}

/** A body as sent or received: JSON indented, anything else as it is. */
function Body(props: { text: string | null; label: string }) {
  if (props.text === null || props.text === '') return <p class="hint">Empty.</p>;
  let shown = props.text;
  try {
    const parsed: unknown = JSON.parse(props.text);
    if (typeof parsed === 'object' && parsed !== null) shown = JSON.stringify(parsed, null, 2);
  } catch {
    // Not JSON: shown as received.
  }
  return (
    <pre tabIndex={0} aria-label={props.label}>
      {shown}
    </pre>
  );
}

function Headers(props: { headers: Record<string, string> | null; label: string }) {
  if (props.headers === null) return <p class="hint">None: no answer came.</p>;
  const entries = Object.entries(props.headers);
  if (entries.length === 0) return <p class="hint">None.</p>;
  return (
    <div class="table-wrap">
      <table aria-label={props.label}>
        <thead>
          <tr>
            <th scope="col">Header</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([k, v]) => (
            <tr key={k}>
              <td>
                <code>{k}</code>
              </td>
              <td class="break">{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LogPage(props: { id: string }) {
  const id = props.id;
  const log = useLoad(
    () => unwrap(parley().api.GET('/v2/logs/{webhook_log_id}', { params: { path: { webhook_log_id: id } } })),
    [id],
  );
  if (log.error instanceof ParleyError && (log.error.status === 404 || log.error.status === 400)) {
    return (
      <Page title="Webhook attempt not found">
        <p>This webhook attempt does not exist.</p>
        <p>
          <a href={href('logs')}>Back to the webhook logs</a>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Webhook attempt">
      <p>
        <a href={href('logs')}>All webhook logs</a>
      </p>
      <Loading state={log}>
        {(l) => (
          <>
            <dl class="details">
              <div>
                <dt>Kind</dt>
                <dd>{typeText(l.webhook_type)}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd>{statusText(l.status)}</dd>
              </div>
              <div>
                <dt>Request</dt>
                <dd class="break">
                  {l.http_method ? `${l.http_method} ` : ''}
                  {l.url}
                </dd>
              </div>
              <div>
                <dt>Answer</dt>
                <dd>{codeText(l.response_status_code)}</dd>
              </div>
              <div>
                <dt>Attempt</dt>
                <dd>{l.attempt_number}</dd>
              </div>
              <div>
                <dt>Took</dt>
                <dd>{durationText(l.duration_ms)}</dd>
              </div>
              <div>
                <dt>Sent</dt>
                <dd>{when(l.request_timestamp)}</dd>
              </div>
              <div>
                <dt>Recorded</dt>
                <dd>{when(l.created_at)}</dd>
              </div>
              {l.call_id ? (
                <div>
                  <dt>Call</dt>
                  <dd>
                    <a href={href('calls', l.call_id)}>{l.call_id}</a>
                  </dd>
                </div>
              ) : null}
              {l.assistant_id ? (
                <div>
                  <dt>Agent</dt>
                  <dd>
                    <a href={href('agents', l.assistant_id)}>{l.assistant_id}</a>
                  </dd>
                </div>
              ) : null}
              {l.webhook_id ? (
                <div>
                  <dt>Webhook ID</dt>
                  <dd class="break">
                    <code>{l.webhook_id}</code>
                  </dd>
                </div>
              ) : null}
            </dl>
            {l.error ? (
              <p class="error" role="note">
                Why it failed: {l.error}
              </p>
            ) : null}
            <h2>Request headers</h2>
            <Headers headers={l.request_headers} label="Request headers" />
            <h2>Request body</h2>
            <Body text={l.request_body} label="Request body" />
            <h2>Response headers</h2>
            <Headers headers={l.response_headers} label="Response headers" />
            <h2>Response body</h2>
            {l.response_status_code === null && !l.response_body ? (
              <p class="hint">None: no answer came.</p>
            ) : (
              <Body text={l.response_body} label="Response body" />
            )}
          </>
        )}
      </Loading>
    </Page>
  );
}
