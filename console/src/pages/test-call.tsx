import { useEffect, useRef, useState } from 'preact/hooks';
import {
  describeClose,
  hasWebCodecsAudio,
  ParleyError,
  ResponseTimer,
  startWebCall,
  WebCallError,
  type paths,
  type WebCall,
  type WebCallClose,
} from '../../../sdk/index.ts';
import { openCallAudio, type CallAudio } from '../audio.ts';
import { href } from '../router.ts';
import { describe, parley, unwrap } from '../session.ts';
import { SelectField } from '../form.tsx';
import { Table } from '../table.tsx';
import { Page } from '../ui.tsx';

// "Test in the browser": a call to the agent from this page (the WebSocket media test call,
// docs/ws-media.md): the microphone goes to the agent as 16 kHz L16 frames (or 48 kHz Opus), the
// agent's audio plays through a small jitter buffer, and the transcript follows live with how long
// the agent took to answer each time, as heard here. Once the call ends, its record's own per-turn
// latency.

type CallRecord =
  paths['/v2/calls/{call_id}']['get']['responses'][200]['content']['application/json']['response']['calls'][number];

interface Line {
  speaker: 'agent' | 'caller';
  text: string;
  /** For an agent line: from the end of the caller's speech to its first sound here (ms). */
  heardAfterMs?: number;
}

type Phase = 'idle' | 'starting' | 'live' | 'ending' | 'ended';

/**
 * The codecs the page can speak (docs/ws-media.md): L16 at 16 kHz, no codec to carry; Opus at
 * 48 kHz, as WebRTC sends it, through the browser's WebCodecs where it has them.
 */
const CODECS = {
  l16: { label: 'L16, 16 kHz (uncompressed)', rate: 16000 },
  opus: { label: 'Opus, 48 kHz (as WebRTC sends it)', rate: 48000 },
} as const;
type Codec = keyof typeof CODECS;
const FINAL = new Set(['completed', 'failed', 'canceled']);
/** How often the record is read once the call ended, until it is final. */
const RECORD_POLL_MS = 1000;

/** The microphone's refusal in words (getUserMedia's DOMException names). */
function microphoneError(err: unknown): string {
  const name = err instanceof DOMException ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return "The microphone was refused. Allow it for this page in the browser's site settings, then call again.";
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'No microphone was found.';
  if (name === 'NotReadableError')
    return 'The microphone could not be opened (another program may be using it).';
  return `The microphone could not be opened: ${err instanceof Error ? err.message : String(err)}`;
}

/** How the call's socket ended, in words; null when this page hung up. */
function endedWords(close: WebCallClose): string | null {
  if (close.hungUp && close.code === 1000) return null;
  if (close.ended !== null) return 'The call ended on the agent’s side.';
  return `The call’s connection closed: ${describeClose(close)}.`;
}

function perTurn(record: CallRecord): { turn: number; kind: string; totalMs: number | null }[] {
  const q = record.quality as { per_turn?: unknown } | null;
  if (!q || !Array.isArray(q.per_turn)) return [];
  return q.per_turn.flatMap((t: unknown, i) => {
    if (typeof t !== 'object' || t === null) return [];
    const o = t as Record<string, unknown>;
    return [
      {
        turn: typeof o.turn === 'number' ? o.turn : i + 1,
        kind: typeof o.kind === 'string' ? o.kind : '',
        totalMs: typeof o.total_ms === 'number' ? o.total_ms : null,
      },
    ];
  });
}

export function TestCall(props: { modelId: string }) {
  const [phase, setPhase] = useState<Phase>('idle');
  const [codec, setCodec] = useState<Codec>('l16');
  const [lines, setLines] = useState<Line[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [callId, setCallId] = useState<string | null>(null);
  const [record, setRecord] = useState<CallRecord | null>(null);
  const live = useRef<{ call: WebCall | null; audio: CallAudio | null; abort: AbortController } | null>(null);

  /** Stops the microphone and playback, hangs up; safe to call twice. */
  const stop = async () => {
    const current = live.current;
    if (!current) return;
    live.current = null;
    current.abort.abort();
    current.call?.hangUp();
    await current.audio?.close().catch(() => undefined);
  };
  // Leaving the page hangs up.
  useEffect(() => () => void stop(), []);

  // Once the call ended: its record, until it is final (the transcript and latency are written then).
  useEffect(() => {
    if (phase !== 'ended' || !callId) return;
    let active = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const page = await unwrap(
          parley().api.GET('/v2/calls/{call_id}', { params: { path: { call_id: callId } } }),
        );
        const found = page.calls[0];
        if (!active) return;
        if (found && FINAL.has(found.status)) return setRecord(found);
      } catch {
        // Tried again below: the record is a convenience; the call's page has it too.
      }
      if (active) timer = setTimeout(read, RECORD_POLL_MS);
    };
    void read();
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [phase, callId]);

  const call = async () => {
    setError(null);
    setLines([]);
    setCallId(null);
    setRecord(null);
    setPhase('starting');
    const abort = new AbortController();
    const current: { call: WebCall | null; audio: CallAudio | null; abort: AbortController } = {
      call: null,
      audio: null,
      abort,
    };
    live.current = current;
    const timer = new ResponseTimer();
    // The microphone first: a refusal starts no call.
    if (!navigator.mediaDevices?.getUserMedia) {
      live.current = null;
      setPhase('idle');
      setError(
        'This page cannot use the microphone here: the browser allows it on https (or localhost) only.',
      );
      return;
    }
    try {
      current.audio = await openCallAudio({
        callRate: CODECS[codec].rate,
        onFrame: (pcm) => {
          const c = current.call;
          if (!c) return;
          c.send(pcm);
          timer.sent(pcm, performance.now());
        },
      });
    } catch (err) {
      if (live.current !== current) return; // hung up while the browser asked
      live.current = null;
      setPhase('idle');
      setError(microphoneError(err));
      return;
    }
    if (live.current !== current) return void (await current.audio.close());
    try {
      current.call = await startWebCall(parley(), {
        modelId: props.modelId,
        codec,
        framing: 'payload',
        signal: abort.signal,
        onAudio: (pcm) => {
          current.audio?.play(pcm);
          const heardAfterMs = timer.heard(performance.now());
          if (heardAfterMs !== null) setLines((ls) => withResponseTime(ls, Math.round(heardAfterMs)));
        },
        onTranscript: (line) => {
          if (line.speaker === 'caller') timer.callerLine();
          setLines((ls) => [...ls, line]);
        },
      });
    } catch (err) {
      // Hung up while calling: no error to show.
      const cancelled = live.current !== current;
      await stop();
      setPhase('idle');
      if (cancelled) return;
      setError(
        err instanceof ParleyError
          ? `The call was refused: ${describe(err)}`
          : err instanceof WebCallError
            ? `The call could not start: ${err.message}.`
            : describe(err),
      );
      return;
    }
    setCallId(current.call.callId);
    setPhase('live');
    const close = await current.call.closed;
    if (live.current === current) await stop();
    setPhase('ended');
    setError(endedWords(close));
  };

  const hangUp = async () => {
    setPhase((p) => (p === 'live' ? 'ending' : p));
    await stop();
    setPhase((p) => (p === 'starting' ? 'idle' : p));
  };

  const busy = phase === 'starting' || phase === 'live' || phase === 'ending';
  return (
    <Page
      title="Test in the browser"
      actions={
        busy ? (
          <button type="button" class="danger" onClick={hangUp} disabled={phase === 'ending'}>
            Hang up
          </button>
        ) : (
          <button type="button" onClick={call}>
            Call
          </button>
        )
      }
    >
      <p class="hint">
        Talk to the agent with this computer’s microphone and speakers (headphones avoid an echo). The call is
        a real call: it is listed with the others, and recorded when the agent records its calls.
      </p>
      {hasWebCodecsAudio() ? (
        <SelectField
          label="Audio"
          id="test-call-codec"
          value={codec}
          disabled={busy}
          onValue={(v) => setCodec(v === 'opus' ? 'opus' : 'l16')}
        >
          {(Object.keys(CODECS) as Codec[]).map((c) => (
            <option key={c} value={c}>
              {CODECS[c].label}
            </option>
          ))}
        </SelectField>
      ) : null}
      <p role="status" class="call-status">
        {phase === 'starting'
          ? 'Calling…'
          : phase === 'live'
            ? 'On the call: speak when the agent has finished.'
            : phase === 'ending'
              ? 'Hanging up…'
              : phase === 'ended'
                ? 'The call ended.'
                : 'Not on a call.'}
        {callId ? (
          <>
            {' '}
            <a href={href('calls', callId)}>{record ? 'Open the call’s page' : 'The call’s page'}</a>
          </>
        ) : null}
      </p>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <h2>Transcript</h2>
      {lines.length === 0 ? (
        <p class="hint">{busy ? 'The transcript shows here as the call goes.' : 'No call yet.'}</p>
      ) : (
        <ol class="transcript live-transcript" aria-live="polite" aria-label="Live transcript">
          {lines.map((line, i) => (
            <li key={i} class={line.speaker}>
              <span class="who">{line.speaker === 'agent' ? 'Agent' : 'You'}</span>
              {line.text}
              {line.heardAfterMs !== undefined ? (
                <span
                  class="hint latency"
                  title="From the end of your speech to the agent's first sound here"
                >
                  {' '}
                  answered after {line.heardAfterMs.toLocaleString()} ms
                </span>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {phase === 'ended' && callId ? <RecordLatency record={record} /> : null}
    </Page>
  );
}

/**
 * Puts a response time on the agent line it belongs to: the latest agent line when it has none
 * (its transcript line comes as it starts, before its audio), else it is kept for the next one.
 */
function withResponseTime(lines: Line[], ms: number): Line[] {
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (line.speaker !== 'agent') continue;
    if (line.heardAfterMs !== undefined) break;
    const next = lines.slice();
    next[i] = { ...line, heardAfterMs: ms };
    return next;
  }
  return lines;
}

function RecordLatency(props: { record: CallRecord | null }) {
  if (!props.record) return <p aria-busy="true">Waiting for the call’s record…</p>;
  const { status, error_message } = props.record;
  const turns = perTurn(props.record);
  return (
    <>
      {status !== 'completed' ? (
        <p class="error" role="alert">
          The call {status}
          {error_message ? `: ${error_message}` : '.'}
        </p>
      ) : null}
      <h2>Per-turn latency (the call’s record)</h2>
      {turns.length === 0 ? (
        <p>No agent turns were measured.</p>
      ) : (
        <Table
          caption="From the end of the caller’s speech to the agent’s first frame out, on the server."
          columns={['Turn', 'Kind', 'Total (ms)']}
        >
          {turns.map((t) => (
            <tr key={t.turn}>
              <td>{t.turn}</td>
              <td>{t.kind || '—'}</td>
              <td>{t.totalMs ?? '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}
