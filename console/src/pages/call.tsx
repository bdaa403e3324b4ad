import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ParleyError, type paths } from '../../../sdk/index.ts';
import { go, href } from '../router.ts';
import { fieldError, parley, unwrap } from '../session.ts';
import { ListTable, optional, Table, usePagedList } from '../table.tsx';
import { ErrorNote, Loading, Page, useLoad, when } from '../ui.tsx';

// One call: its record, the recording with a transcript that seeks it, the latency of each agent
// turn, the actions, analysis and collected variables, and the post-call webhook's deliveries.

type CallRecord =
  paths['/v2/calls/{call_id}']['get']['responses'][200]['content']['application/json']['response']['calls'][number];

// ---- Reading the untyped parts of the record (`quality`, actions, analysis) ----

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** `quality.per_turn`: each agent turn's times (ms from the answer) and stage durations. */
function turnsOf(quality: unknown): Obj[] {
  return isObj(quality) && Array.isArray(quality.per_turn) ? quality.per_turn.filter(isObj) : [];
}

/** A call that is not there: 404, or the 400 of a malformed id or an unknown one. */
function isMissing(err: unknown): boolean {
  if (!(err instanceof ParleyError)) return false;
  if (err.status === 404) return true;
  return (
    err.status === 400 && (/not found/i.test(err.description) || fieldError(err, 'call_id') !== undefined)
  );
}

/** `m:ss` of ms. */
function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function msText(value: unknown): string {
  const n = num(value);
  return n === null ? '—' : `${Math.round(n).toLocaleString()} ms`;
}

function secondsText(value: unknown): string {
  const n = num(value);
  return n === null ? '—' : `${(n / 1000).toFixed(1)} s`;
}

/** The end reason in words: the vendor's literal `undefined` (no answer, busy, failed) shows as none. */
export function endReason(reason: string | null, custom: string | null): string {
  const base = reason && reason !== 'undefined' ? reason : '';
  if (custom) return base ? `${base}: ${custom}` : custom;
  return base || '—';
}

// ---- The transcript and its times ----

interface Line {
  who: 'agent' | 'caller' | null;
  text: string;
  /** Where the line starts in the recording (ms), when the quality record says. */
  atMs: number | null;
}

/** How far before the end of the caller's speech a caller line starts (its length is not recorded). */
const CALLER_LEAD_MS = 3000;
/** The least an agent line is taken to last before the caller's line after it. */
const AGENT_LINE_MIN_MS = 1000;

/** `bot: …` / `human: …` lines; a line without a speaker continues the line before it. */
function parseTranscript(transcript: string): Omit<Line, 'atMs'>[] {
  const lines: Omit<Line, 'atMs'>[] = [];
  for (const raw of transcript.split('\n')) {
    if (raw.trim() === '') continue;
    const speaker = /^(bot|human):\s?/.exec(raw);
    const last = lines.at(-1);
    if (speaker)
      lines.push({ who: speaker[1] === 'bot' ? 'agent' : 'caller', text: raw.slice(speaker[0].length) });
    else if (last) last.text += `\n${raw}`;
    else lines.push({ who: null, text: raw });
  }
  return lines;
}

/**
 * Each line's time. Agent lines take the agent turns in order (greeting, reply, …) and start at
 * their first frame out. The caller lines before an agent line are what its turn answers when that
 * is a reply: they start at the turn's `speech_start_at` (several share the span to its end of
 * speech); a record without it (older calls) places each a few seconds before the end of speech,
 * not before 0 nor within a second of the agent line before them. Otherwise no time.
 */
function timedLines(transcript: string, quality: unknown): Line[] {
  const turns = turnsOf(quality);
  const lines: Line[] = parseTranscript(transcript).map((line) => ({ ...line, atMs: null }));
  let used = 0;
  let previous: number | null = null;
  let callers: Line[] = [];
  const placeCallers = () => {
    const next = turns[used];
    const endOfSpeech = next && next.kind === 'reply' ? num(next.end_of_speech_at) : null;
    const speechStart = next && next.kind === 'reply' ? num(next.speech_start_at) : null;
    if (endOfSpeech !== null && speechStart !== null && speechStart <= endOfSpeech) {
      // The record says when the caller began: the lines share the span from there to the end.
      callers.forEach((line, k) => {
        line.atMs = Math.round(speechStart + ((endOfSpeech - speechStart) * k) / callers.length);
      });
    } else if (endOfSpeech !== null) {
      const floor = previous === null ? 0 : previous + AGENT_LINE_MIN_MS;
      callers.forEach((line, k) => {
        const guess = endOfSpeech - CALLER_LEAD_MS * (callers.length - k);
        line.atMs = Math.max(0, Math.min(endOfSpeech, Math.max(floor, guess)));
      });
    }
    callers = [];
  };
  for (const line of lines) {
    if (line.who === 'caller') callers.push(line);
    if (line.who !== 'agent') continue;
    placeCallers();
    const turn = turns[used];
    used += 1;
    line.atMs = turn ? num(turn.first_frame_out_at) : null;
    if (line.atMs !== null) previous = line.atMs;
  }
  placeCallers();
  return lines;
}

/** A seek lands on the media's own time grid, a hair before the millisecond it was asked for. */
const SEEK_SLACK_MS = 1;

/** The line being played: the latest-starting one at or before `ms` (the last of equals, or `chosen`). */
function playingIndex(lines: Line[], ms: number, chosen: number): number {
  let best = -1;
  let bestAt = -Infinity;
  lines.forEach((line, i) => {
    if (line.atMs !== null && line.atMs <= ms + SEEK_SLACK_MS && line.atMs >= bestAt) {
      best = i;
      bestAt = line.atMs;
    }
  });
  // Of lines starting together, the one the user chose.
  return lines[chosen]?.atMs === bestAt ? chosen : best;
}

// ---- The recording ----

type Recording =
  | { state: 'loading' }
  | { state: 'none' }
  | { state: 'ready'; url: string }
  | { state: 'error'; error: unknown };

/** Throws the API's refusal as a ParleyError (the envelope reader says it in words). */
async function refusal(error: unknown, response: Response): Promise<never> {
  await unwrap(Promise.resolve({ error, response }));
  throw new Error(`the recording could not be read (${response.status})`);
}

/** The recording as an object URL (the route needs the key, so an `<audio src>` cannot fetch it). */
function useRecording(callId: string, wanted: boolean, status: string): Recording {
  const [recording, setRecording] = useState<Recording>({ state: wanted ? 'loading' : 'none' });
  // The file appears once the call has ended: it is read again when the status changes.
  useEffect(() => {
    if (!wanted) {
      setRecording({ state: 'none' });
      return;
    }
    let live = true;
    let url: string | null = null;
    setRecording({ state: 'loading' });
    const load = async (): Promise<Blob | null> => {
      const { data, error, response } = await parley().api.GET('/v2/calls/{call_id}/recording', {
        params: { path: { call_id: callId } },
        parseAs: 'blob',
      });
      if (response.status === 404) return null;
      if (!response.ok) return refusal(error, response);
      return data instanceof Blob && data.size > 0 ? data : null;
    };
    load().then(
      (blob) => {
        if (!live) return;
        if (!blob) return setRecording({ state: 'none' });
        url = URL.createObjectURL(blob);
        setRecording({ state: 'ready', url });
      },
      (error: unknown) => live && setRecording({ state: 'error', error }),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [callId, wanted, status]);
  return recording;
}

// ---- Showing values readably ----

function Value(props: { value: unknown }) {
  const { value } = props;
  if (value === null || value === undefined || value === '') return <>—</>;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return <>{String(value)}</>;
  return <pre>{JSON.stringify(value, null, 2)}</pre>;
}

/** Label and value rows (a two-column table: compact, and read row by row). */
function Rows(props: { rows: [string, ComponentChildren][] }) {
  return (
    <div class="table-wrap">
      <table>
        <tbody>
          {props.rows.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An object as label/value rows; anything else as a value; `empty` when there is nothing. */
function Entries(props: { value: unknown; empty: string; skipEmpty?: boolean }) {
  const { value } = props;
  if (isObj(value)) {
    const entries = Object.entries(value).filter(([, v]) => !props.skipEmpty || (v !== '' && v !== null));
    if (entries.length === 0) return <p>{props.empty}</p>;
    return <Rows rows={entries.map(([key, v]) => [key, <Value value={v} />])} />;
  }
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0))
    return <p>{props.empty}</p>;
  return <Value value={value} />;
}

function Section(props: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

// ---- The sections ----

function Details(props: { call: CallRecord; agentName: string | undefined }) {
  const c = props.call;
  const rows: [string, ComponentChildren][] = [
    ['Status', c.status],
    ['End reason', endReason(c.end_call_reason, c.custom_end_call_reason)],
    ['Agent', <a href={href('agents', c.model_id)}>{props.agentName || c.model_id}</a>],
    ['Direction', c.type_of_call],
    ['From', c.phone_number_from || '—'],
    ['To', c.phone_number_to || '—'],
    ['Lead', [c.name, c.lead_email].filter(Boolean).join(', ') || '—'],
    ['Started', when(c.start_time)],
    ['Ended', when(c.end_time)],
    ['Duration', `${c.duration} s`],
    ['Created', when(c.created_at)],
  ];
  if (c.batch_call_id)
    rows.push(['Campaign', <a href={href('campaigns', c.batch_call_id)}>{c.batch_call_id}</a>]);
  if (c.agent_version) rows.push(['Agent version', c.agent_version]);
  return (
    <>
      {c.error_message ? (
        <p class="error" role="alert">
          The call failed: {c.error_message}
        </p>
      ) : null}
      <Rows rows={rows} />
    </>
  );
}

function Transcript(props: {
  lines: Line[];
  playable: boolean;
  playing: number;
  onPlay: (index: number, ms: number) => void;
}) {
  if (props.lines.length === 0) return <p>No transcript.</p>;
  return (
    <ol class="transcript">
      {props.lines.map((line, i) => {
        const who = line.who === 'agent' ? 'Agent' : line.who === 'caller' ? 'Caller' : '';
        const content = (
          <>
            {who ? <span class="who">{who}</span> : null}
            {line.text}
          </>
        );
        const at = line.atMs;
        return (
          <li
            key={i}
            class={i === props.playing ? 'playing' : undefined}
            aria-current={i === props.playing ? 'true' : undefined}
          >
            {props.playable && at !== null ? (
              <button type="button" onClick={() => props.onPlay(i, at)}>
                <span class="hint">{clock(at)} </span>
                {content}
              </button>
            ) : (
              content
            )}
          </li>
        );
      })}
    </ol>
  );
}

const STAGES: [string, string][] = [
  ['endpointing_ms', 'Endpointing'],
  ['stt_ms', 'STT'],
  ['model_ms', 'Model'],
  ['chunking_ms', 'Chunking'],
  ['tts_ms', 'TTS'],
  ['playout_ms', 'Playout'],
  ['first_token_ms', 'First token'],
];

function Latency(props: { quality: unknown }) {
  const q = props.quality;
  if (!isObj(q)) return <p>No quality record for this call.</p>;
  const turns = turnsOf(q);
  const latency = isObj(q.latency_ms) ? q.latency_ms : {};
  const talk = isObj(q.talk_ms) ? q.talk_ms : {};
  const stages = STAGES.filter(([key]) => turns.some((t) => num(t[key]) !== null));
  const counters: [string, string][] = [
    ['p50', msText(latency.p50)],
    ['p95', msText(latency.p95)],
  ];
  if (num(q.interruptions) !== null) counters.push(['Interruptions', String(q.interruptions)]);
  if (num(talk.caller) !== null) counters.push(['Caller talked', secondsText(talk.caller)]);
  if (num(talk.agent) !== null) counters.push(['Agent talked', secondsText(talk.agent)]);
  if (num(q.silence_ms) !== null) counters.push(['Silence', secondsText(q.silence_ms)]);
  const loss = num(q.packet_loss);
  if (loss !== null) counters.push(['Packet loss', `${(loss * 100).toFixed(2)} %`]);
  if (num(q.jitter_ms) !== null) counters.push(['Jitter', msText(q.jitter_ms)]);
  return (
    <>
      <div class="counters">
        {counters.map(([label, value]) => (
          <div key={label}>
            <strong>{value}</strong>
            {label}
          </div>
        ))}
      </div>
      {turns.length === 0 ? (
        <p>No agent turns were measured.</p>
      ) : (
        <Table
          caption={
            q.mode === 'voice'
              ? "Times in ms; total is from the end of the caller's speech to the first frame out."
              : 'Times in ms.'
          }
          columns={['Turn', 'Kind', 'Total', ...optional(...stages.map(([, label]) => label))]}
        >
          {turns.map((t, i) => (
            <tr key={i}>
              <td>{num(t.turn) ?? i + 1}</td>
              <td>{str(t.kind) ?? '—'}</td>
              <td>{num(t.total_ms) ?? '—'}</td>
              {stages.map(([key]) => (
                <td key={key} class="optional">
                  {num(t[key]) ?? '—'}
                </td>
              ))}
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

function Timeline(props: { timeline: unknown[] }) {
  const entries = props.timeline.filter(isObj);
  if (entries.length === 0) return <p>No actions ran.</p>;
  return (
    <Table
      columns={[
        'Action',
        ...optional('Type'),
        'Attempt',
        'Status',
        ...optional('Started', 'Finished'),
        'Details',
      ]}
    >
      {entries.map((e, i) => {
        const detail: Obj = {};
        for (const key of [
          'parameters_from_llm',
          'parameters_hard_coded',
          'transfer',
          'human_connected_at',
        ]) {
          const v = e[key];
          if (v !== undefined && v !== null && !(isObj(v) && Object.keys(v).length === 0)) detail[key] = v;
        }
        return (
          <tr key={i}>
            <td>{str(e.name) ?? '—'}</td>
            <td class="optional">{str(e.action_type) ?? '—'}</td>
            <td>{num(e.attempt) ?? '—'}</td>
            <td>{str(e.status) ?? '—'}</td>
            <td class="optional">{when(str(e.started_at))}</td>
            <td class="optional">{when(str(e.finished_at))}</td>
            <td>
              {str(e.failed_reason) ? <p class="field-error">{str(e.failed_reason)}</p> : null}
              {Object.keys(detail).length > 0 ? (
                <details>
                  <summary>Parameters</summary>
                  <pre>{JSON.stringify(detail, null, 2)}</pre>
                </details>
              ) : null}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

function ExecutedActions(props: { actions: Obj }) {
  const actions = Object.entries(props.actions).filter((entry): entry is [string, Obj] => isObj(entry[1]));
  if (actions.length === 0) return <p>No executed actions.</p>;
  return (
    <Table columns={['Action', ...optional('Type', 'When'), 'Result']}>
      {actions.map(([key, a]) => (
        <tr key={key}>
          <td>{str(a.name) ?? key}</td>
          <td class="optional">{str(a.action_type) ?? '—'}</td>
          <td class="optional">{when(str(a.timestamp_datetime))}</td>
          <td>
            {str(a.error_message) ? <p class="field-error">{str(a.error_message)}</p> : null}
            <Entries value={a.return_value} empty="No return value." />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** `{name: {value, collected}}`: each variable's value, marked when not (yet) collected. */
function CollectedVariables(props: { value: unknown }) {
  const { value } = props;
  if (!isObj(value) || Object.keys(value).length === 0) return <p>No variables collected.</p>;
  return (
    <Rows
      rows={Object.entries(value).map(([key, v]) => {
        const shaped = isObj(v) && 'value' in v;
        return [
          key,
          <>
            <Value value={shaped ? v.value : v} />
            {shaped && v.collected === false ? <span class="hint"> (not collected)</span> : null}
          </>,
        ];
      })}
    />
  );
}

const LOG_PAGE = 20;

function Deliveries(props: { callId: string; refreshed: number }) {
  const {
    list: logs,
    offset,
    paging,
  } = usePagedList(
    LOG_PAGE,
    ({ limit, offset }) =>
      unwrap(
        parley().api.GET('/v2/logs', {
          params: { query: { call_id: props.callId, page_number: offset / limit + 1, page_size: limit } },
        }),
      ),
    [props.callId, props.refreshed],
  );
  return (
    <Loading state={logs}>
      {(page) => (
        <ListTable
          columns={['Type', 'Status', 'Response', ...optional('Attempt', 'Time', 'URL')]}
          items={page.items}
          empty={offset === 0 ? <p>No webhook deliveries for this call.</p> : undefined}
          paging={page.total > LOG_PAGE || offset > 0 ? paging(page.total) : undefined}
          row={(log) => (
            <tr key={log.webhook_log_id}>
              <td>{log.webhook_type}</td>
              <td>{log.status}</td>
              <td>
                {log.response_status_code ?? 'No answer'}
                {log.error ? <span class="hint"> ({log.error})</span> : null}
              </td>
              <td class="optional">{log.attempt_number}</td>
              <td class="optional">{when(log.created_at)}</td>
              <td class="optional">{log.url}</td>
            </tr>
          )}
        />
      )}
    </Loading>
  );
}

function CallView(props: { call: CallRecord; refreshed: number }) {
  const c = props.call;
  const recording = useRecording(c.call_id, c.recording_url !== null && c.recording_url !== '', c.status);
  const audio = useRef<HTMLAudioElement>(null);
  const [playing, setPlaying] = useState(-1);
  // The line last clicked, read by the player's time updates (a ref: a state would be stale in
  // the update that the click's own seek fires before the page renders again).
  const chosen = useRef(-1);
  const lines = useMemo(() => timedLines(c.transcript, c.quality), [c.transcript, c.quality]);
  const agent = useLoad(
    () =>
      unwrap(parley().api.GET('/v2/assistants/{model_id}', { params: { path: { model_id: c.model_id } } })),
    [c.model_id],
  );
  const playable = recording.state === 'ready' && lines.some((l) => l.atMs !== null);

  const play = (index: number, ms: number) => {
    const el = audio.current;
    if (!el) return;
    el.currentTime = ms / 1000;
    chosen.current = index;
    setPlaying(index);
    el.play().catch(() => undefined);
  };
  const track = () => {
    const el = audio.current;
    if (el) setPlaying(playingIndex(lines, el.currentTime * 1000, chosen.current));
  };

  return (
    <>
      <Section id="call-details" title="Details">
        <Details call={c} agentName={agent.data?.assistants[0]?.name} />
      </Section>
      <Section id="call-recording" title="Recording">
        {recording.state === 'loading' ? <p aria-busy="true">Loading the recording…</p> : null}
        {recording.state === 'none' ? <p>No recording for this call.</p> : null}
        {recording.state === 'error' ? <ErrorNote error={recording.error} /> : null}
        {recording.state === 'ready' ? (
          <audio
            ref={audio}
            controls
            preload="metadata"
            src={recording.url}
            aria-label="Call recording"
            onTimeUpdate={track}
            onSeeked={track}
            onEnded={() => setPlaying(-1)}
          />
        ) : null}
      </Section>
      <Section id="call-transcript" title="Transcript">
        {playable ? <p class="hint">Choose a line to play the recording from there.</p> : null}
        <Transcript lines={lines} playable={playable} playing={playable ? playing : -1} onPlay={play} />
      </Section>
      <Section id="call-latency" title="Per-turn latency">
        <Latency quality={c.quality} />
      </Section>
      <Section id="call-timeline" title="Action timeline">
        <Timeline timeline={c.action_execution_timeline} />
      </Section>
      <Section id="call-actions" title="Executed actions">
        <ExecutedActions actions={c.executed_actions} />
      </Section>
      <Section id="call-analysis" title="Analysis">
        <Entries value={c.analysis} empty={c.end_time ? 'No analysis.' : 'No analysis yet.'} skipEmpty />
      </Section>
      <Section id="call-variables" title="Collected variables">
        <CollectedVariables value={c.collected_variables} />
      </Section>
      <Section id="call-webhooks" title="Webhook deliveries">
        <Deliveries callId={c.call_id} refreshed={props.refreshed} />
      </Section>
    </>
  );
}

export function Call(props: { callId: string }) {
  const { callId } = props;
  const call = useLoad(async () => {
    const page = await unwrap(
      parley().api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId } } }),
    );
    return page.calls[0] ?? null;
  }, [callId]);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>(undefined);
  const [refreshed, setRefreshed] = useState(0);
  const refresh = () => {
    setRefreshed((n) => n + 1);
    call.reload();
  };

  const remove = async () => {
    if (!confirm('Delete this call and its recording? This cannot be undone.')) return;
    setDeleting(true);
    setDeleteError(undefined);
    try {
      await unwrap(parley().api.DELETE('/v2/calls/{call_id}', { params: { path: { call_id: callId } } }));
      go('calls');
    } catch (err) {
      setDeleteError(err);
      setDeleting(false);
    }
  };

  const missing = call.data === null || isMissing(call.error);
  const actions = missing ? undefined : (
    <>
      <a class="button secondary" href={href('calls')}>
        All calls
      </a>
      <button type="button" class="secondary" onClick={refresh} disabled={call.loading}>
        Refresh
      </button>
      <button type="button" class="danger" onClick={remove} disabled={deleting || !call.data}>
        {deleting ? 'Deleting…' : 'Delete'}
      </button>
    </>
  );

  return (
    <Page title="Call" actions={actions}>
      <ErrorNote error={deleteError} />
      {missing ? (
        <p>
          This call does not exist. <a href={href('calls')}>Back to the calls.</a>
        </p>
      ) : (
        <Loading state={call}>
          {(record) => (record ? <CallView call={record} refreshed={refreshed} /> : null)}
        </Loading>
      )}
    </Page>
  );
}
