import { useState } from 'preact/hooks';
import { ParleyError, type paths } from '../../../sdk/index.ts';
import { AgentFilter, loadAgents, useAgentNames } from '../agent-choice.tsx';
import { ChoiceFilter, DateRange, dayMs, FilterForm, filterErrors, useFilters } from '../filters.tsx';
import { InputField } from '../form.tsx';
import { href } from '../router.ts';
import { parley, unwrap } from '../session.ts';
import { byPageNumber, ListTable, optional, Pager, Table } from '../table.tsx';
import { Loading, NotFound, Page, Term, useLoad, when } from '../ui.tsx';

// Webhook logs: one row per attempt to reach a receiver (post-call webhooks, inbound-call
// webhooks, custom actions), newest first, with the API's filters applied together from a form;
// and one attempt's page with its request and response, headers and bodies.

type ListQuery = NonNullable<paths['/v2/logs']['get']['parameters']['query']>;
type WebhookType = NonNullable<ListQuery['webhook_type']>;
type LogStatus = NonNullable<ListQuery['status']>;

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
  const [page, setPage] = useState(1);
  const { draft, applied, set, apply, clear } = useFilters(NO_FILTERS, () => setPage(1));
  const agents = useLoad(loadAgents, []);
  const logs = useLoad(
    () => unwrap(parley().api.GET('/v2/logs', { params: { query: queryOf(applied, page) } })),
    [applied, page],
  );
  const names = useAgentNames(agents);
  const { errors, refused } = filterErrors(logs.error, FILTER_FIELDS);

  return (
    <Page title="Webhook logs">
      <FilterForm
        label="Filter webhook logs"
        onApply={apply}
        onReset={clear}
        apply="Apply filters"
        reset="Clear"
      >
        <ChoiceFilter
          label="Kind"
          id="logs-type"
          any="Any kind"
          labels={TYPE_LABELS}
          value={draft.type}
          onValue={(v) => set('type', v)}
          error={errors.webhook_type}
        />
        <ChoiceFilter
          label="Status"
          id="logs-status"
          any="Any status"
          labels={STATUS_LABELS}
          value={draft.status}
          onValue={(v) => set('status', v)}
          error={errors.status}
        />
        <AgentFilter
          id="logs-agent"
          agents={agents}
          value={draft.agentId}
          onValue={(v) => set('agentId', v)}
          error={errors.assistant_id}
        />
        <InputField
          label="Call ID"
          id="logs-call"
          error={errors.call_id}
          type="text"
          autocomplete="off"
          value={draft.callId}
          onValue={(v) => set('callId', v)}
        />
        <DateRange
          prefix="logs"
          from={draft.from}
          to={draft.to}
          onValue={set}
          errors={{ from: errors.from_date, to: errors.to_date }}
        />
        <InputField
          label="URL or ID contains"
          id="logs-search"
          error={errors.search}
          type="search"
          maxLength={200}
          value={draft.search}
          onValue={(v) => set('search', v)}
        />
      </FilterForm>
      {refused ? (
        <p>No attempts shown: the API refused a filter (see the marked field).</p>
      ) : (
        <Loading state={logs}>
          {(data) => {
            const paging = byPageNumber(page, PAGE_SIZE, data.total, setPage);
            return (
              <ListTable
                label="Webhook attempts"
                busy={logs.loading}
                columns={['Time', 'Kind', 'Status', 'Answer', ...optional('Attempt', 'Took', 'Agent', 'URL')]}
                items={data.items}
                empty={
                  <>
                    <p>
                      {page > 1
                        ? 'No attempts on this page.'
                        : JSON.stringify(applied) === JSON.stringify(NO_FILTERS)
                          ? 'No webhook attempts yet. Each post-call webhook, inbound-call webhook and custom action request is listed here.'
                          : 'No attempts match these filters.'}
                    </p>
                    {page > 1 ? <Pager {...paging} /> : null}
                  </>
                }
                paging={paging}
                row={(l) => (
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
                )}
              />
            );
          }}
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
    <Table label={props.label} columns={['Header', 'Value']}>
      {entries.map(([k, v]) => (
        <tr key={k}>
          <td>
            <code>{k}</code>
          </td>
          <td class="break">{v}</td>
        </tr>
      ))}
    </Table>
  );
}

function LogPage(props: { id: string }) {
  const id = props.id;
  const log = useLoad(
    () => unwrap(parley().api.GET('/v2/logs/{webhook_log_id}', { params: { path: { webhook_log_id: id } } })),
    [id],
  );
  if (log.error instanceof ParleyError && (log.error.status === 404 || log.error.status === 400)) {
    return <NotFound thing="webhook attempt" back={href('logs')} backText="Back to the webhook logs" />;
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
              <Term label="Kind">{typeText(l.webhook_type)}</Term>
              <Term label="Status">{statusText(l.status)}</Term>
              <Term label="Request" breakable>
                {l.http_method ? `${l.http_method} ` : ''}
                {l.url}
              </Term>
              <Term label="Answer">{codeText(l.response_status_code)}</Term>
              <Term label="Attempt">{l.attempt_number}</Term>
              <Term label="Took">{durationText(l.duration_ms)}</Term>
              <Term label="Sent">{when(l.request_timestamp)}</Term>
              <Term label="Recorded">{when(l.created_at)}</Term>
              {l.call_id ? (
                <Term label="Call">
                  <a href={href('calls', l.call_id)}>{l.call_id}</a>
                </Term>
              ) : null}
              {l.assistant_id ? (
                <Term label="Agent">
                  <a href={href('agents', l.assistant_id)}>{l.assistant_id}</a>
                </Term>
              ) : null}
              {l.webhook_id ? (
                <Term label="Webhook ID" breakable>
                  <code>{l.webhook_id}</code>
                </Term>
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
