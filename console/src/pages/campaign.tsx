import { useEffect, useState } from 'preact/hooks';
import { ParleyError, type paths } from '../../../sdk/index.ts';
import { href } from '../router.ts';
import { SelectField } from '../form.tsx';
import { usePolled } from '../polled.ts';
import { describe, parley, unwrap } from '../session.ts';
import { ListTable, optional, usePagedList } from '../table.tsx';
import { Counter, ErrorNote, Loading, LoadingPage, NotFound, Page, Term, useLoad, when } from '../ui.tsx';

// One campaign (a batch of calls): its live counters (polled every 2 s until it is completed or
// canceled), pause / resume / cancel, and its recipients one page at a time (a campaign may hold a
// million: only the page shown is ever loaded).

/** A campaign as the API returns it (GET /v2/calls/batch/{batch_call_id} and the list alike). */
export type Batch =
  paths['/v2/calls/batch/{batch_call_id}']['get']['responses'][200]['content']['application/json']['response'];
type BatchStatus = Batch['status'];
type TaskQuery = NonNullable<paths['/v2/calls/batch/{batch_call_id}/tasks']['get']['parameters']['query']>;
type TaskFilter = NonNullable<TaskQuery['status']>;
type Task =
  paths['/v2/calls/batch/{batch_call_id}/tasks']['get']['responses'][200]['content']['application/json']['response']['tasks'][number];

export const BATCH_STATUS: Record<BatchStatus, string> = {
  scheduled: 'Scheduled',
  in_progress: 'In progress',
  paused: 'Paused',
  completed: 'Completed',
  canceled: 'Canceled',
};

/** Statuses a campaign never leaves: nothing more to watch. */
const FINAL: ReadonlySet<BatchStatus> = new Set<BatchStatus>(['completed', 'canceled']);
const POLL_MS = 2_000;
const LIMIT = 50;

/** The filter's choices; `pending` is the API's other name for `queued`, so it is not offered twice. */
const TASK_FILTERS: Record<Exclude<TaskFilter, 'pending'>, string> = {
  queued: 'Queued (pending)',
  claimed: 'Being dialed',
  dispatched: 'Dispatched',
  failed: 'Failed',
  canceled: 'Canceled',
};
const TASK_STATUS: Record<Task['status'], string> = {
  queued: 'Queued',
  claimed: 'Being dialed',
  dispatched: 'Dispatched',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** Recipients whose turn is over: called, failed or canceled. */
export function doneCount(b: Batch): number {
  return b.dispatched_count + b.failed_count + b.canceled_count;
}

const count = (n: number) => n.toLocaleString();

type Action = 'pause' | 'resume' | 'cancel';

export function Campaign(props: { batchCallId: string }) {
  const id = props.batchCallId;
  const polled = usePolled(
    () =>
      unwrap(
        parley().api.GET('/v2/calls/batch/{batch_call_id}', { params: { path: { batch_call_id: id } } }),
      ),
    (b) => FINAL.has(b.status),
    POLL_MS,
    [id],
  );
  const { record: batch, loadError, pollError } = polled;
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState<Action | null>(null);
  // Another campaign's page starts without the last one's refusal.
  useEffect(() => setActionError(undefined), [id]);

  const act = async (action: Action) => {
    if (
      action === 'cancel' &&
      !confirm(
        'Cancel this campaign? Recipients not called yet will never be called; calls in progress go on.',
      )
    ) {
      return;
    }
    setBusy(action);
    setActionError(undefined);
    polled.hold();
    const params = { params: { path: { batch_call_id: id } } };
    const api = parley().api;
    try {
      const b = await unwrap(
        action === 'pause'
          ? api.POST('/v2/calls/batch/{batch_call_id}/pause', params)
          : action === 'resume'
            ? api.POST('/v2/calls/batch/{batch_call_id}/resume', params)
            : api.POST('/v2/calls/batch/{batch_call_id}/cancel', params),
      );
      polled.replace(b);
    } catch (err) {
      polled.hold();
      setActionError(err);
    } finally {
      setBusy(null);
    }
  };

  if (batch === undefined) {
    if (loadError instanceof ParleyError && loadError.status === 404) {
      return <NotFound thing="campaign" back={href('campaigns')} backText="Back to the campaigns" />;
    }
    return <LoadingPage title="Campaign" error={loadError} />;
  }

  const s = batch.status;
  const total = batch.total_task_count;
  const done = doneCount(batch);
  const canPause = s === 'scheduled' || s === 'in_progress';
  const canResume = s === 'paused';
  const canCancel = !FINAL.has(s);
  const actions =
    canPause || canResume || canCancel ? (
      <>
        {canPause ? (
          <button type="button" class="secondary" disabled={busy !== null} onClick={() => void act('pause')}>
            {busy === 'pause' ? 'Pausing…' : 'Pause'}
          </button>
        ) : null}
        {canResume ? (
          <button type="button" class="secondary" disabled={busy !== null} onClick={() => void act('resume')}>
            {busy === 'resume' ? 'Resuming…' : 'Resume'}
          </button>
        ) : null}
        {canCancel ? (
          <button type="button" class="danger" disabled={busy !== null} onClick={() => void act('cancel')}>
            {busy === 'cancel' ? 'Canceling…' : 'Cancel campaign'}
          </button>
        ) : null}
      </>
    ) : undefined;
  // The recipients' page is read again when the counters move (at most once per poll).
  const version = [
    s,
    total,
    batch.pending_count,
    batch.dispatched_count,
    batch.failed_count,
    batch.canceled_count,
  ].join(':');

  return (
    <Page title={batch.name || 'Untitled campaign'} actions={actions}>
      <p>
        <a href={href('campaigns')}>All campaigns</a>
      </p>
      <ErrorNote error={actionError} />
      {pollError !== undefined ? (
        <p class="error" role="alert">
          The counters could not be refreshed: {describe(pollError)}
        </p>
      ) : null}
      <dl class="details">
        <Term label="Status">{BATCH_STATUS[s] ?? s}</Term>
        <Term label="Agent">
          <AgentLink modelId={batch.model_id} />
        </Term>
        <Term label="From number">{batch.from_phone_number}</Term>
        <Term label="Starts">
          {batch.trigger_timestamp === null ? 'At once' : when(batch.trigger_timestamp)}
        </Term>
        <Term label="Created">{when(batch.created_at)}</Term>
      </dl>
      <div class="field">
        <label for="campaign-progress">
          {count(done)} of {count(total)} recipients done
          {total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : ''}
        </label>
        <progress id="campaign-progress" max={Math.max(total, 1)} value={done} />
      </div>
      <div class="counters">
        <Counter value={count(total)}>total</Counter>
        <Counter value={count(batch.pending_count)}>pending</Counter>
        <Counter value={count(batch.dispatched_count)}>dispatched</Counter>
        <Counter value={count(batch.failed_count)}>failed</Counter>
        <Counter value={count(batch.canceled_count)}>canceled</Counter>
      </div>
      <Recipients batchCallId={id} version={version} />
    </Page>
  );
}

/** The agent by its name (its id until the name comes, or if it is gone). */
function AgentLink(props: { modelId: string }) {
  const agent = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/assistants/{model_id}', { params: { path: { model_id: props.modelId } } }),
      ),
    [props.modelId],
  );
  return <a href={href('agents', props.modelId)}>{agent.data?.assistants[0]?.name || props.modelId}</a>;
}

function Recipients(props: { batchCallId: string; version: string }) {
  const [filter, setFilter] = useState<TaskFilter | ''>('');
  const { list, offset, setOffset, paging } = usePagedList(
    LIMIT,
    (page) =>
      unwrap(
        parley().api.GET('/v2/calls/batch/{batch_call_id}/tasks', {
          params: {
            path: { batch_call_id: props.batchCallId },
            query: { ...page, ...(filter ? { status: filter } : {}) },
          },
        }),
      ),
    [props.batchCallId, filter, props.version],
  );
  return (
    <>
      <h2 id="recipients">Recipients</h2>
      <div class="filters">
        <SelectField
          label="Status"
          id="recipient-status"
          value={filter}
          onValue={(v) => {
            setFilter(v as TaskFilter | '');
            setOffset(0);
          }}
        >
          <option value="">All</option>
          {(Object.entries(TASK_FILTERS) as [TaskFilter, string][]).map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </SelectField>
      </div>
      <Loading state={list}>
        {(data) => (
          <ListTable
            labelledBy="recipients"
            columns={['Phone', ...optional('Name'), 'Status', 'Call', ...optional('Your id')]}
            items={data.tasks}
            empty={
              offset === 0 ? (
                <p>{filter ? 'No recipients with this status.' : 'No recipients.'}</p>
              ) : undefined
            }
            paging={paging(data.pagination.total_records)}
            row={(t) => (
              <tr key={t.task_id}>
                <td>{t.to_phone_number}</td>
                <td class="optional">{t.lead_name || '—'}</td>
                <td>
                  {TASK_STATUS[t.status] ?? t.status}
                  {t.error_message ? (
                    <>
                      <br />
                      <small class="field-error">{t.error_message}</small>
                    </>
                  ) : null}
                </td>
                <td>
                  {t.call_id ? (
                    <a href={href('calls', t.call_id)}>
                      {t.call_status ? `Call (${t.call_status.replace(/_/g, ' ')})` : 'Call'}
                    </a>
                  ) : (
                    '—'
                  )}
                  {t.end_call_reason ? (
                    <>
                      <br />
                      <small class="hint">{t.end_call_reason.replace(/_/g, ' ')}</small>
                    </>
                  ) : null}
                </td>
                <td class="optional">{t.id ?? '—'}</td>
              </tr>
            )}
          />
        )}
      </Loading>
    </>
  );
}
