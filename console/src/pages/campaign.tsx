import { useEffect, useRef, useState } from 'preact/hooks';
import { ParleyError, type paths } from '../../../sdk/index.ts';
import { href } from '../router.ts';
import { describe, parley, unwrap } from '../session.ts';
import { ErrorNote, Field, Loading, Page, Pager, useLoad, when } from '../ui.tsx';

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
  const [batch, setBatch] = useState<Batch | undefined>(undefined);
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const [pollError, setPollError] = useState<unknown>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState<Action | null>(null);
  // Bumped around every action, so that a poll answer sent before it cannot undo what it shows.
  const seq = useRef(0);
  const status = useRef<BatchStatus | undefined>(undefined);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let loaded = false;
    setBatch(undefined);
    setLoadError(undefined);
    setPollError(undefined);
    setActionError(undefined);
    status.current = undefined;
    const poll = async () => {
      const mine = seq.current;
      let again = true;
      try {
        const b = await unwrap(
          parley().api.GET('/v2/calls/batch/{batch_call_id}', { params: { path: { batch_call_id: id } } }),
        );
        if (!live) return;
        if (mine === seq.current) {
          loaded = true;
          status.current = b.status;
          setBatch(b);
          setPollError(undefined);
        }
      } catch (err) {
        if (!live) return;
        // A refusal (not found, say) stays so; no answer or a server error is tried again.
        again = err instanceof ParleyError && err.retryable;
        if (loaded) setPollError(err);
        else setLoadError(err);
      }
      if (!live || !again || (status.current !== undefined && FINAL.has(status.current))) return;
      timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);

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
    seq.current++;
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
      seq.current++;
      status.current = b.status;
      setBatch(b);
    } catch (err) {
      seq.current++;
      setActionError(err);
    } finally {
      setBusy(null);
    }
  };

  if (batch === undefined) {
    if (loadError instanceof ParleyError && loadError.status === 404) {
      return (
        <Page title="Campaign not found">
          <p>This campaign does not exist.</p>
          <p>
            <a href={href('campaigns')}>Back to the campaigns</a>
          </p>
        </Page>
      );
    }
    return (
      <Page title="Campaign">
        {loadError !== undefined ? <ErrorNote error={loadError} /> : <p aria-busy="true">Loading…</p>}
      </Page>
    );
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
      <dl>
        <dt>Status</dt>
        <dd>{BATCH_STATUS[s] ?? s}</dd>
        <dt>Agent</dt>
        <dd>
          <AgentLink modelId={batch.model_id} />
        </dd>
        <dt>From number</dt>
        <dd>{batch.from_phone_number}</dd>
        <dt>Starts</dt>
        <dd>{batch.trigger_timestamp === null ? 'At once' : when(batch.trigger_timestamp)}</dd>
        <dt>Created</dt>
        <dd>{when(batch.created_at)}</dd>
      </dl>
      <div class="field">
        <label for="campaign-progress">
          {count(done)} of {count(total)} recipients done
          {total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : ''}
        </label>
        <progress id="campaign-progress" max={Math.max(total, 1)} value={done} />
      </div>
      <div class="counters">
        <div>
          <strong>{count(total)}</strong> total
        </div>
        <div>
          <strong>{count(batch.pending_count)}</strong> pending
        </div>
        <div>
          <strong>{count(batch.dispatched_count)}</strong> dispatched
        </div>
        <div>
          <strong>{count(batch.failed_count)}</strong> failed
        </div>
        <div>
          <strong>{count(batch.canceled_count)}</strong> canceled
        </div>
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
  const [offset, setOffset] = useState(0);
  const [filter, setFilter] = useState<TaskFilter | ''>('');
  const page = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/calls/batch/{batch_call_id}/tasks', {
          params: {
            path: { batch_call_id: props.batchCallId },
            query: { limit: LIMIT, offset, ...(filter ? { status: filter } : {}) },
          },
        }),
      ),
    [props.batchCallId, offset, filter, props.version],
  );
  return (
    <>
      <h2 id="recipients">Recipients</h2>
      <div class="filters">
        <Field label="Status" id="recipient-status">
          <select
            id="recipient-status"
            value={filter}
            onChange={(e) => {
              setFilter(e.currentTarget.value as TaskFilter | '');
              setOffset(0);
            }}
          >
            <option value="">All</option>
            {(Object.entries(TASK_FILTERS) as [TaskFilter, string][]).map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </Field>
      </div>
      <Loading state={page}>
        {(data) =>
          data.tasks.length === 0 && offset === 0 ? (
            <p>{filter ? 'No recipients with this status.' : 'No recipients.'}</p>
          ) : (
            <>
              <div class="table-wrap">
                <table aria-labelledby="recipients">
                  <thead>
                    <tr>
                      <th scope="col">Phone</th>
                      <th scope="col">Name</th>
                      <th scope="col">Status</th>
                      <th scope="col">Call</th>
                      <th scope="col" class="optional">
                        Your id
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.tasks.map((t) => (
                      <tr key={t.task_id}>
                        <td>{t.to_phone_number}</td>
                        <td>{t.lead_name || '—'}</td>
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
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager offset={offset} limit={LIMIT} total={data.pagination.total_records} onPage={setOffset} />
            </>
          )
        }
      </Loading>
    </>
  );
}
