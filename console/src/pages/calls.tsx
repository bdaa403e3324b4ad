import { useState } from 'preact/hooks';
import type { paths } from '../../../sdk/index.ts';
import { AgentFilter, loadAgents, useAgentNames } from '../agent-choice.tsx';
import { ChoiceFilter, DateRange, dayMs, FilterForm, filterErrors, useFilters } from '../filters.tsx';
import { InputField } from '../form.tsx';
import { href } from '../router.ts';
import { parley, unwrap } from '../session.ts';
import { ListTable, optional, Pager } from '../table.tsx';
import { Loading, Page, useLoad, when } from '../ui.tsx';
import { endReason } from './call.tsx';

// The call list: `GET /v2/calls` with the spec's filters, newest first, 50 a page. The filters
// are edited in a form and applied together (so a half-typed number is not sent); a filter the
// API refuses shows the API's words beside its field.

type ListQuery = NonNullable<paths['/v2/calls']['get']['parameters']['query']>;
type CallStatus = NonNullable<ListQuery['call_status']>;

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

export function Calls() {
  const [offset, setOffset] = useState(0);
  const { draft, applied, set, apply, clear } = useFilters(NO_FILTERS, () => setOffset(0));
  const agents = useLoad(() => loadAgents('as listed'), []);
  const calls = useLoad(
    () => unwrap(parley().api.GET('/v2/calls', { params: { query: queryOf(applied, offset) } })),
    [applied, offset],
  );
  const names = useAgentNames(agents);
  const { errors, refused } = filterErrors(calls.error, FILTER_FIELDS);

  return (
    <Page title="Calls">
      <FilterForm label="Filter calls" onApply={apply} onReset={clear} apply="Apply filters" reset="Clear">
        <AgentFilter
          id="calls-agent"
          agents={agents}
          value={draft.modelId}
          onValue={(v) => set('modelId', v)}
          error={errors.model_id}
        />
        <ChoiceFilter
          label="Status"
          id="calls-status"
          any="Any status"
          labels={STATUS_LABELS}
          value={draft.status}
          onValue={(v) => set('status', v)}
          error={errors.call_status}
        />
        <DateRange
          prefix="calls"
          from={draft.from}
          to={draft.to}
          onValue={set}
          errors={{ from: errors.from_date, to: errors.to_date }}
        />
        <InputField
          label="Lead phone number"
          id="calls-phone"
          error={errors.lead_phone_number}
          type="tel"
          autocomplete="off"
          placeholder="+15551234567"
          value={draft.phone}
          onValue={(v) => set('phone', v)}
        />
        <InputField
          label="Campaign"
          id="calls-batch"
          error={errors.batch_call_id}
          type="text"
          autocomplete="off"
          placeholder="batch_call_id"
          value={draft.batch}
          onValue={(v) => set('batch', v)}
        />
      </FilterForm>
      {refused ? (
        <p>No calls shown: the API refused a filter (see the marked field).</p>
      ) : (
        <Loading state={calls}>
          {(page) => {
            const paging = { offset, limit: LIMIT, total: page.pagination.total_records, onPage: setOffset };
            return (
              <ListTable
                busy={calls.loading}
                columns={[
                  'Started',
                  'Agent',
                  ...optional('To', 'From'),
                  'Status',
                  ...optional('Duration (s)', 'End reason'),
                ]}
                items={page.calls}
                empty={
                  <>
                    <p>No calls match these filters.</p>
                    {offset > 0 ? <Pager {...paging} /> : null}
                  </>
                }
                paging={paging}
                row={(c) => (
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
                )}
              />
            );
          }}
        </Loading>
      )}
    </Page>
  );
}
