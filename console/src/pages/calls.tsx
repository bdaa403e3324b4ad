import { useMemo, useState } from 'preact/hooks';
import { allAgents, type components, type paths } from '../../../sdk/index.ts';
import { href } from '../router.ts';
import { describe, fieldError, parley, unwrap } from '../session.ts';
import { Field, Loading, Page, Pager, useLoad, when } from '../ui.tsx';

// The call list: `GET /v2/calls` with the spec's filters, newest first, 50 a page. The filters
// are edited in a form and applied together (so a half-typed number is not sent); a filter the
// API refuses shows the API's words beside its field.

type ListQuery = NonNullable<paths['/v2/calls']['get']['parameters']['query']>;
type CallStatus = NonNullable<ListQuery['call_status']>;
type Agent = components['schemas']['Agent'];

const LIMIT = 50;

/** Every status of the SDK's type (a Record, so a status added to the API fails to compile here). */
const STATUS_LABELS: Record<CallStatus, string> = {
  pending: 'Pending',
  ringing: 'Ringing',
  'in-progress': 'In progress',
  completed: 'Completed',
  'no-answer': 'No answer',
  busy: 'Busy',
  failed: 'Failed',
  canceled: 'Canceled',
  'user-canceled': 'Canceled by the user',
  hangup_on_voicemail: 'Hung up on voicemail',
  left_voicemail: 'Left a voicemail',
  spam: 'Spam',
  paused: 'Paused',
  registered: 'Registered',
};
const STATUSES = Object.keys(STATUS_LABELS) as CallStatus[];

function isStatus(value: string): value is CallStatus {
  return Object.hasOwn(STATUS_LABELS, value);
}

interface Filters {
  modelId: string;
  status: CallStatus | '';
  /** `yyyy-mm-dd` of an `<input type="date">`, or empty. */
  from: string;
  to: string;
  phone: string;
  batch: string;
}

const NO_FILTERS: Filters = { modelId: '', status: '', from: '', to: '', phone: '', batch: '' };

/** Local midnight of a `yyyy-mm-dd` day, in ms since the epoch (`endOf`: its last ms). */
function dayMs(day: string, endOf: boolean): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = endOf ? new Date(y, m - 1, d + 1).getTime() - 1 : new Date(y, m - 1, d).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

function queryOf(f: Filters, offset: number): ListQuery {
  const fromDate = dayMs(f.from, false);
  const toDate = dayMs(f.to, true);
  const phone = f.phone.trim();
  const batch = f.batch.trim();
  return {
    limit: LIMIT,
    offset,
    ...(f.modelId ? { model_id: f.modelId } : {}),
    ...(f.status ? { call_status: f.status } : {}),
    ...(fromDate !== undefined ? { from_date: fromDate } : {}),
    ...(toDate !== undefined ? { to_date: toDate } : {}),
    ...(phone ? { lead_phone_number: phone } : {}),
    ...(batch ? { batch_call_id: batch } : {}),
  };
}

/** The filters' query names, in the order a refusal is given to a field (to_date before from_date). */
const FILTER_FIELDS = [
  'model_id',
  'call_status',
  'to_date',
  'from_date',
  'lead_phone_number',
  'batch_call_id',
] as const;
type FilterField = (typeof FILTER_FIELDS)[number];

/** The API's complaint about one filter, beside the first field it names (never two). */
function filterErrors(err: unknown): Partial<Record<FilterField, string>> {
  for (const field of FILTER_FIELDS) {
    const message = fieldError(err, field);
    if (message) return { [field]: message };
  }
  return {};
}

/** aria attributes of a control whose field may show an error. */
function invalid(id: string, error: string | undefined) {
  return error ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {};
}

/** The end reason in words: the vendor's literal `undefined` (no answer, busy, failed) shows as none. */
function endReason(reason: string | null, custom: string | null): string {
  const base = reason && reason !== 'undefined' ? reason : '';
  if (custom) return base ? `${base}: ${custom}` : custom;
  return base || '—';
}

async function loadAgents(): Promise<Agent[]> {
  const agents: Agent[] = [];
  for await (const agent of allAgents(parley(), {}, 1000)) agents.push(agent);
  return agents;
}

export function Calls() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const agents = useLoad(loadAgents, []);
  const calls = useLoad(
    () => unwrap(parley().api.GET('/v2/calls', { params: { query: queryOf(filters, offset) } })),
    [filters, offset],
  );
  const names = useMemo(
    () => new Map((agents.data ?? []).map((a) => [a.model_id, a.name || a.model_id])),
    [agents.data],
  );
  const errors = filterErrors(calls.error);
  const claimed = Object.keys(errors).length > 0;
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));

  const apply = (event: Event) => {
    event.preventDefault();
    setFilters({ ...draft });
    setOffset(0);
  };
  const clear = () => {
    setDraft(NO_FILTERS);
    setFilters({ ...NO_FILTERS });
    setOffset(0);
  };

  return (
    <Page title="Calls">
      <form class="filters" onSubmit={apply} aria-label="Filter calls" noValidate>
        <Field
          label="Agent"
          id="calls-agent"
          error={errors.model_id}
          {...(agents.error !== undefined ? { hint: `Agents not loaded: ${describe(agents.error)}` } : {})}
        >
          <select
            id="calls-agent"
            value={draft.modelId}
            onChange={(e) => set('modelId', e.currentTarget.value)}
            {...invalid('calls-agent', errors.model_id)}
          >
            <option value="">All agents</option>
            {(agents.data ?? []).map((a) => (
              <option key={a.model_id} value={a.model_id}>
                {a.name || a.model_id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Status" id="calls-status" error={errors.call_status}>
          <select
            id="calls-status"
            value={draft.status}
            onChange={(e) => {
              const value = e.currentTarget.value;
              set('status', isStatus(value) ? value : '');
            }}
            {...invalid('calls-status', errors.call_status)}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </Field>
        <Field label="From" id="calls-from" error={errors.from_date}>
          <input
            id="calls-from"
            type="date"
            value={draft.from}
            onInput={(e) => set('from', e.currentTarget.value)}
            {...invalid('calls-from', errors.from_date)}
          />
        </Field>
        <Field label="To" id="calls-to" error={errors.to_date}>
          <input
            id="calls-to"
            type="date"
            value={draft.to}
            onInput={(e) => set('to', e.currentTarget.value)}
            {...invalid('calls-to', errors.to_date)}
          />
        </Field>
        <Field label="Lead phone number" id="calls-phone" error={errors.lead_phone_number}>
          <input
            id="calls-phone"
            type="tel"
            autocomplete="off"
            placeholder="+15551234567"
            value={draft.phone}
            onInput={(e) => set('phone', e.currentTarget.value)}
            {...invalid('calls-phone', errors.lead_phone_number)}
          />
        </Field>
        <Field label="Campaign" id="calls-batch" error={errors.batch_call_id}>
          <input
            id="calls-batch"
            type="text"
            autocomplete="off"
            placeholder="batch_call_id"
            value={draft.batch}
            onInput={(e) => set('batch', e.currentTarget.value)}
            {...invalid('calls-batch', errors.batch_call_id)}
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
        <p>No calls shown: the API refused a filter (see the marked field).</p>
      ) : (
        <Loading state={calls}>
          {(page) =>
            page.calls.length === 0 ? (
              <>
                <p>No calls match these filters.</p>
                {offset > 0 ? (
                  <Pager
                    offset={offset}
                    limit={LIMIT}
                    total={page.pagination.total_records}
                    onPage={setOffset}
                  />
                ) : null}
              </>
            ) : (
              <>
                <div class="table-wrap" aria-busy={calls.loading ? 'true' : undefined}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Started</th>
                        <th scope="col">Agent</th>
                        <th scope="col" class="optional">
                          To
                        </th>
                        <th scope="col" class="optional">
                          From
                        </th>
                        <th scope="col">Status</th>
                        <th scope="col" class="optional">
                          Duration (s)
                        </th>
                        <th scope="col" class="optional">
                          End reason
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.calls.map((c) => (
                        <tr key={c.call_id}>
                          <td>
                            <a href={href('calls', c.call_id)}>{when(c.start_time ?? c.created_at)}</a>
                          </td>
                          <td>{names.get(c.model_id) ?? c.model_id}</td>
                          <td class="optional">{c.phone_number_to || '—'}</td>
                          <td class="optional">{c.phone_number_from || '—'}</td>
                          <td>{STATUS_LABELS[c.call_status] ?? c.call_status}</td>
                          <td class="optional">{c.duration}</td>
                          <td class="optional">{endReason(c.end_call_reason, c.custom_end_call_reason)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  offset={offset}
                  limit={LIMIT}
                  total={page.pagination.total_records}
                  onPage={setOffset}
                />
              </>
            )
          }
        </Loading>
      )}
    </Page>
  );
}
