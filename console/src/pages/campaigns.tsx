import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  blobText,
  checkFile,
  CsvError,
  eachByOffset,
  fileChunks,
  MAX_TASKS_PER_BATCH,
  ParleyError,
  type Chunk,
  type components,
  type FileCheck,
  type paths,
} from '../../../sdk/index.ts';
import { AgentField, loadAgents } from '../agent-choice.tsx';
import { aria, focusFirstProblem, FormButtons, InputField, type Problems } from '../form.tsx';
import { go, href } from '../router.ts';
import { describe, fieldError, parley, unwrap } from '../session.ts';
import { ListTable, optional, usePagedList } from '../table.tsx';
import {
  ErrorNote,
  Field,
  Loading,
  Page,
  plural,
  useJumpTarget,
  useLoad,
  when,
  type Loaded,
} from '../ui.tsx';
import { BATCH_STATUS, type Batch } from './campaign.tsx';

// The campaigns (batches of calls), newest first, and a form for a new one: the recipients come
// from a CSV file with the columns `parley batch upload` takes, checked in the browser before
// anything is sent, then sent in requests of at most 10,000 recipients (and about 1 MB), the first
// creating the campaign and the rest adding to it.

type Agent = components['schemas']['Agent'];
type PhoneNumber = components['schemas']['PhoneNumber'];
type CreateBody = paths['/v2/calls/batch']['post']['requestBody']['content']['application/json'];

const LIMIT = 50;
const RETRY_DELAY_MS = 500;
const MAX_RETRY_AFTER_MS = 30_000;

const count = (n: number) => n.toLocaleString();

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function loadNumbers(): Promise<PhoneNumber[]> {
  return collect(
    eachByOffset(async (page) => {
      const r = await unwrap(parley().api.GET('/v2/numbers', { params: { query: page } }));
      return { items: r.numbers, total: r.pagination.total_records };
    }, 1000),
  );
}

export function Campaigns() {
  const { list, offset, paging } = usePagedList(LIMIT, (page) =>
    unwrap(parley().api.GET('/v2/calls/batch', { params: { query: page } })),
  );
  const agents = useLoad(loadAgents, []);
  const names = useMemo(() => new Map((agents.data ?? []).map((a) => [a.model_id, a.name])), [agents.data]);
  const newForm = useJumpTarget();

  return (
    <Page
      title="Campaigns"
      actions={
        <button type="button" class="secondary" onClick={newForm.jump}>
          New campaign
        </button>
      }
    >
      <Loading state={list}>
        {(data) => (
          <ListTable
            label="Campaigns"
            columns={[
              'Name',
              'Agent',
              'Status',
              'Total',
              ...optional('Pending', 'Dispatched', 'Failed', 'Canceled', 'Created'),
            ]}
            items={data.batch_calls}
            empty={
              offset === 0 ? <p>No campaigns yet: start the first one with the form below.</p> : undefined
            }
            paging={paging(data.pagination.total_records)}
            row={(b) => (
              <tr key={b.batch_call_id}>
                <td>
                  <a href={href('campaigns', b.batch_call_id)}>{b.name || 'Untitled campaign'}</a>
                </td>
                <td>{names.get(b.model_id) ?? b.model_id}</td>
                <td>{BATCH_STATUS[b.status] ?? b.status}</td>
                <td>{count(b.total_task_count)}</td>
                <td class="optional">{count(b.pending_count)}</td>
                <td class="optional">{count(b.dispatched_count)}</td>
                <td class="optional">{count(b.failed_count)}</td>
                <td class="optional">{count(b.canceled_count)}</td>
                <td class="optional">{when(b.created_at)}</td>
              </tr>
            )}
          />
        )}
      </Loading>
      <section aria-labelledby="new-campaign">
        <h2 id="new-campaign" tabIndex={-1} ref={newForm.heading}>
          New campaign
        </h2>
        <NewCampaign agents={agents} />
      </section>
    </Page>
  );
}

// ---- the form ----

type Check =
  | { kind: 'none' }
  | { kind: 'checking'; total: number }
  | { kind: 'ok'; result: FileCheck }
  | { kind: 'error'; message: string };

/** A refused (or unanswered) request, with what it means for the campaign. */
interface Failure {
  err: unknown;
  /** The request's number (0 creates the campaign). */
  index: number;
  /** What went wrong, in words, with CSV lines for recipients. */
  message: string;
  /** The recipients it names, by CSV line. */
  recipients: string | undefined;
  /** What the server kept. */
  stored: string;
  batchCallId: string | undefined;
}

interface Progress {
  sent: number;
  total: number;
}

/** The words for a file that could not be read or is not a valid recipients file. */
function fileMessage(err: unknown): string {
  if (err instanceof CsvError) return `Line ${count(err.line)}: ${err.reason}.`;
  if (err instanceof DOMException && err.name === 'NotReadableError') {
    return 'The file could not be read (was it changed or moved?). Choose it again.';
  }
  return describe(err);
}

/** `body.tasks[3].to_phone_number` in the API's words becomes `CSV line 5, to_phone_number`. */
function withLines(text: string, lines: readonly number[]): string {
  return text.replace(/(?:body\.)?tasks\[(\d+)\](\.)?/g, (whole, i: string, dot: string | undefined) => {
    const line = lines[Number(i)];
    return line === undefined ? whole : `CSV line ${count(line)}${dot ? ', ' : ''}`;
  });
}

function isTaskLoc(loc: readonly (string | number)[]): boolean {
  return loc[0] === 'body' && loc[1] === 'tasks' && typeof loc[2] === 'number';
}

/** The recipients a refusal names, by CSV line (at most 10, as the CLI shows). */
function recipientErrors(err: unknown, chunk: Chunk): string | undefined {
  if (!(err instanceof ParleyError)) return undefined;
  const items = err.errors.filter((e) => isTaskLoc(e.loc));
  if (items.length === 0) {
    if (/tasks\[\d+\]/.test(err.description)) return withLines(err.description, chunk.lines);
    return fieldError(err, 'tasks');
  }
  const shown = items.slice(0, 10).map((e) => {
    const text = withLines(e.msg, chunk.lines);
    if (text !== e.msg) return text;
    const line = chunk.lines[e.loc[2] as number];
    const field = e.loc.slice(3).join('.');
    return `CSV line ${line === undefined ? '?' : count(line)}${field ? `, ${field}` : ''}: ${e.msg}`;
  });
  if (items.length > 10) shown.push(`and ${count(items.length - 10)} more`);
  return shown.join('; ');
}

function explain(
  err: unknown,
  info: {
    index: number;
    requests: number;
    chunk: Chunk;
    sentBefore: number;
    batchCallId: string | undefined;
  },
): Failure {
  const first = info.chunk.lines[0] ?? 0;
  const noAnswer = err instanceof ParleyError && err.status === undefined;
  const which =
    info.requests === 1
      ? 'The campaign was not created'
      : `Request ${count(info.index + 1)} of ${count(info.requests)} (CSV line ${count(first)} on) failed`;
  const message = `${which}: ${withLines(describe(err), info.chunk.lines)}`;
  const before = `The ${plural(info.sentBefore, 'recipient')} before CSV line ${count(first)} were added to the campaign`;
  const stored =
    info.batchCallId === undefined
      ? noAnswer
        ? 'The server may have created the campaign before the connection failed: look at the list below before sending again.'
        : 'Nothing was stored.'
      : noAnswer
        ? `${before}; the server may also have stored this request before the connection failed: look at the campaign before sending the rest.`
        : `${before}; the rest were not sent.`;
  return {
    err,
    index: info.index,
    message,
    recipients: recipientErrors(err, info.chunk),
    stored,
    batchCallId: info.batchCallId,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * POST /v2/calls/batch, once more after a 429 or 5xx (the server stored nothing). A request that
 * got no answer is not sent again: the server may have stored it, and its recipients would be
 * called twice.
 */
async function send(body: CreateBody): Promise<Batch> {
  const post = () => unwrap(parley().api.POST('/v2/calls/batch', { body }));
  try {
    return await post();
  } catch (err) {
    if (!(err instanceof ParleyError) || err.status === undefined || !err.retryable) throw err;
    await sleep(Math.min(err.retryAfterMs ?? RETRY_DELAY_MS, MAX_RETRY_AFTER_MS));
    return post();
  }
}

type CampaignField = 'agent' | 'from' | 'start' | 'file';
const CAMPAIGN_FIELDS: CampaignField[] = ['agent', 'from', 'start', 'file'];

const CSV_HINT =
  'A header row, then one recipient per row. The number: to_phone_number, phone, phone_number or number. ' +
  'Optional: lead_name (or name), lead_email (or email), override_model_id, id. Other columns become ' +
  "the recipient's custom variables.";

function NewCampaign(props: { agents: Loaded<Agent[]> }) {
  const numbers = useLoad(loadNumbers, []);
  const [agentId, setAgentId] = useState('');
  const [from, setFrom] = useState('');
  const [name, setName] = useState('');
  const [start, setStart] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [check, setCheck] = useState<Check>({ kind: 'none' });
  const [invalid, setInvalid] = useState<Problems<CampaignField>>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const busy = progress !== null;
  const mounted = useRef(true);
  const checking = useRef(0);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      checking.current++;
    };
  }, []);

  // Closing the tab mid-upload would leave a campaign with part of the file: ask first.
  useEffect(() => {
    if (!busy) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [busy]);

  const agent = props.agents.data?.find((a) => a.model_id === agentId);
  // The numbers the agent may call from: those attached to it.
  const choices = useMemo(() => {
    if (!agent) return [];
    const attached = new Set(agent.attached_phone_numbers.map((n) => n.number));
    const listed = (numbers.data ?? []).filter(
      (n) => attached.has(n.number) || n.attached_agents.includes(agent.model_id),
    );
    const seen = new Set(listed.map((n) => n.number));
    return [
      ...listed.map((n) => ({
        number: n.number,
        label:
          n.friendly_name && n.friendly_name !== n.number ? `${n.number} (${n.friendly_name})` : n.number,
      })),
      ...[...attached].filter((n) => !seen.has(n)).map((n) => ({ number: n, label: n })),
    ];
  }, [agent, numbers.data]);

  useEffect(() => {
    if (!choices.some((c) => c.number === from)) setFrom(choices[0]?.number ?? '');
  }, [choices]);

  const chooseFile = async (chosen: File | null) => {
    setFile(chosen);
    setFailure(null);
    setInvalid((v) => ({ ...v, file: undefined }));
    const token = ++checking.current;
    const current = () => token === checking.current;
    if (!chosen) return setCheck({ kind: 'none' });
    setCheck({ kind: 'checking', total: 0 });
    try {
      const result = await checkFile(
        stopWhen(blobText(chosen), () => !current()),
        (total) => {
          if (current()) setCheck({ kind: 'checking', total });
        },
      );
      if (!current()) return;
      if (result.total === 0) {
        setCheck({ kind: 'error', message: 'The file has no recipients: only a header row.' });
      } else if (result.total > MAX_TASKS_PER_BATCH) {
        setCheck({
          kind: 'error',
          message: `${plural(result.total, 'recipient')}: more than a campaign holds (${count(MAX_TASKS_PER_BATCH)}).`,
        });
      } else {
        setCheck({ kind: 'ok', result });
      }
    } catch (err) {
      if (current()) setCheck({ kind: 'error', message: fileMessage(err) });
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const problems: typeof invalid = {};
    if (!agentId) problems.agent = 'Choose an agent.';
    else if (!from) problems.from = 'Choose the number to call from (a number attached to the agent).';
    let trigger: number | undefined;
    if (start) {
      trigger = new Date(start).getTime();
      if (Number.isNaN(trigger))
        problems.start = 'Enter a date and time, or leave it empty to start at once.';
    }
    if (!file) problems.file = 'Choose a CSV file of recipients.';
    else if (check.kind === 'checking') problems.file = 'The file is still being checked; wait a moment.';
    else if (check.kind === 'error') problems.file = check.message;
    setInvalid(problems);
    setFailure(null);
    if (focusFirstProblem(problems, CAMPAIGN_FIELDS, (f) => `campaign-${f}`)) return;
    if (!file || check.kind !== 'ok') return;

    const total = check.result.total;
    const requests = check.result.requests;
    const create = {
      model_id: agentId,
      from_phone_number: from,
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(trigger !== undefined ? { trigger_timestamp: trigger } : {}),
    };
    let batchCallId: string | undefined;
    let sent = 0;
    let index = 0;
    setProgress({ sent: 0, total });
    try {
      for await (const chunk of fileChunks(blobText(file))) {
        // Leaving the page stops the upload after the request in flight.
        if (!mounted.current) return;
        const body: CreateBody =
          batchCallId === undefined
            ? { ...create, tasks: chunk.tasks }
            : { batch_call_id: batchCallId, tasks: chunk.tasks };
        let record: Batch;
        try {
          record = await send(body);
        } catch (err) {
          if (mounted.current) {
            setFailure(explain(err, { index, requests, chunk, sentBefore: sent, batchCallId }));
          }
          return;
        }
        batchCallId ??= record.batch_call_id;
        sent += chunk.tasks.length;
        index++;
        if (mounted.current) setProgress({ sent, total: Math.max(total, sent) });
      }
    } catch (err) {
      // The file changed (or vanished) since it was checked.
      if (mounted.current) {
        setFailure({
          err,
          index,
          message: fileMessage(err),
          recipients: undefined,
          stored:
            batchCallId === undefined
              ? 'Nothing was stored.'
              : `The first ${plural(sent, 'recipient')} were added to the campaign; the rest were not sent.`,
          batchCallId,
        });
      }
      return;
    } finally {
      if (mounted.current) setProgress(null);
    }
    if (batchCallId !== undefined && mounted.current) go('campaigns', batchCallId);
  };

  // The API's complaint beside the field it names (only the creating request sets these fields).
  const apiError = (field: string) =>
    failure && failure.index === 0 && failure.recipients === undefined
      ? fieldError(failure.err, field)
      : undefined;
  const errors = {
    agent: invalid.agent ?? apiError('model_id'),
    from: invalid.from ?? apiError('from_phone_number'),
    name: apiError('name'),
    start: invalid.start ?? apiError('trigger_timestamp'),
    file: invalid.file ?? failure?.recipients ?? (check.kind === 'error' ? check.message : undefined),
  };

  return (
    <form onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined}>
      <AgentField
        label="Agent"
        id="campaign-agent"
        agents={props.agents}
        error={errors.agent}
        disabled={busy}
        value={agentId}
        onValue={(v) => {
          setAgentId(v);
          setInvalid((p) => ({ ...p, agent: undefined, from: undefined }));
        }}
      />
      <ErrorNote error={numbers.error} />
      <Field
        label="From number"
        id="campaign-from"
        error={errors.from}
        hint={
          !agent
            ? 'Choose the agent first: a campaign calls from a number attached to its agent.'
            : choices.length === 0 && !numbers.loading
              ? 'No number is attached to this agent. Attach one on the Numbers page first.'
              : undefined
        }
      >
        <select
          id="campaign-from"
          value={from}
          disabled={busy || !agent || choices.length === 0}
          {...aria('campaign-from', !agent || choices.length === 0, errors.from)}
          onChange={(e) => {
            setFrom(e.currentTarget.value);
            setInvalid((v) => ({ ...v, from: undefined }));
          }}
        >
          {choices.length === 0 ? <option value="">No number</option> : null}
          {choices.map((c) => (
            <option value={c.number}>{c.label}</option>
          ))}
        </select>
      </Field>
      <InputField
        label="Name"
        id="campaign-name"
        error={errors.name}
        hint="Optional: how the campaign is listed."
        type="text"
        maxLength={200}
        disabled={busy}
        value={name}
        onValue={setName}
      />
      <InputField
        label="Start time"
        id="campaign-start"
        error={errors.start}
        hint="Optional, in your local time. Empty: dialing starts at once."
        type="datetime-local"
        disabled={busy}
        value={start}
        onValue={(v) => {
          setStart(v);
          setInvalid((p) => ({ ...p, start: undefined }));
        }}
      />
      <Field label="Recipients (CSV file)" id="campaign-file" error={errors.file} hint={CSV_HINT}>
        <input
          id="campaign-file"
          type="file"
          accept=".csv,text/csv"
          disabled={busy}
          aria-invalid={errors.file ? 'true' : undefined}
          aria-describedby={`campaign-file-hint${errors.file ? ' campaign-file-error' : ''} campaign-file-status`}
          onChange={(e) => void chooseFile(e.currentTarget.files?.[0] ?? null)}
        />
        <span id="campaign-file-status" aria-live="polite">
          {check.kind === 'checking'
            ? `Checking ${file?.name ?? 'the file'}… ${plural(check.total, 'recipient')} so far.`
            : check.kind === 'ok'
              ? `${plural(check.result.total, 'recipient')}, to send in ${plural(check.result.requests, 'request')}.`
              : ''}
        </span>
      </Field>
      {failure ? (
        <div class="error" role="alert">
          <p>{failure.message}</p>
          <p>
            {failure.stored}
            {failure.batchCallId !== undefined ? (
              <>
                {' '}
                <a href={href('campaigns', failure.batchCallId)}>Open the campaign.</a>
              </>
            ) : null}
          </p>
        </div>
      ) : null}
      {progress ? (
        <div class="field">
          <label for="campaign-progress">Sending recipients (keep this page open)</label>
          <progress id="campaign-progress" max={Math.max(progress.total, 1)} value={progress.sent} />
          <p aria-live="polite">
            {count(progress.sent)} of {plural(progress.total, 'recipient')} sent
          </p>
        </div>
      ) : null}
      <FormButtons busy={busy} submit={busy ? 'Sending…' : 'Create campaign'} />
    </form>
  );
}

/** Stops reading `source` once `stop()` says so (a newer file was chosen, or the page left). */
async function* stopWhen<T>(source: AsyncIterable<T>, stop: () => boolean): AsyncGenerator<T> {
  for await (const item of source) {
    if (stop()) return;
    yield item;
  }
}
