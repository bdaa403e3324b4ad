// OpenAI realtime transcription (docs/providers/openai.md): one WebSocket to
// `{base}/realtime?intent=transcription` per stream, 24 kHz PCM appended frame by frame. OpenAI's
// turn detection is off: the voice session decides turns, and each flush commits the buffer; that
// item's completed transcript is the flush's one final, in flush order. A server without the
// socket (a self-hosted Whisper-style server) refuses the handshake: the stream then hands the
// audio it holds to the file API (`fallback`) and goes on there.
import WebSocket from 'ws';
import { createAsyncQueue, type Clock, type Logger } from '../../core/index.ts';
import { RateConverter, type AudioFrame, type SampleRate } from '../../media/index.ts';
import {
  MIN_COMMIT_SAMPLES,
  REALTIME_RATE,
  appendEvent,
  clearEvent,
  commitEvent,
  offersNoRealtime,
  parseRealtimeMessage,
  realtimeUrl,
  sessionUpdate,
} from './stt-openai-realtime-wire.ts';
import { SpeechError, type STTOptions, type STTResult, type STTStream } from './types.ts';

export interface RealtimeSTTConfig {
  /** The HTTP base URL (`https://api.openai.com/v1`); the socket's is made from it. */
  baseUrl: string;
  /** May be empty for a self-hosted server that needs none. */
  apiKey: string;
  model: string;
  /** The handshake may take this long (ms of `clock`). */
  connectTimeoutMs: number;
  /** A commit's transcript may take this long (ms of `clock`). */
  finalTimeoutMs: number;
  /** A message larger than this fails the stream. */
  maxMessageBytes: number;
  /** Audio held while the socket opens, at most (ms). */
  maxHeldMs: number;
  clock: Clock;
  logger: Logger;
}

/** One flush's answer: the item its commit became, and its text once known. */
interface Answer {
  itemId: string | null;
  text: string | null;
}

/**
 * Opens a realtime transcription stream. `fallback`, when given, is called once if the server
 * has no realtime socket; it returns the file-API stream that takes over (and is told nothing of
 * the audio: this stream replays what it holds into it).
 */
export function openRealtimeSTTStream(
  config: RealtimeSTTConfig,
  streamOptions: STTOptions,
  fallback: ((status: number) => STTStream) | null,
): STTStream {
  const { clock, logger } = config;
  const results = createAsyncQueue<STTResult>();
  const toRealtime = new RateConverter(REALTIME_RATE);
  /** Frames (copied, at their own rate) and flushes waiting for the socket to open. */
  let held: (AudioFrame | 'flush')[] | null = [];
  let heldMs = 0;
  /** The file-API stream that took over, when the server has no socket. */
  let inner: STTStream | null = null;
  let audioSinceFlush = false;
  /** 24 kHz samples appended since the last commit (or clear). */
  let appended = 0;
  /** Every flush's answer not yet given out, in flush order. */
  const answers: Answer[] = [];
  /** Commits the server has not acknowledged yet, in commit order. */
  const uncommitted: Answer[] = [];
  /** Transcripts of items not matched to a commit yet. */
  const early = new Map<string, string>();
  let closing = false;
  const timers = new AbortController();
  const language = streamOptions.language?.split('-')[0]?.toLowerCase();
  const prompt = (streamOptions.keywords ?? []).join(', ');
  const scrub = (text: string) => (config.apiKey ? text.split(config.apiKey).join('[redacted]') : text);

  // No `OpenAI-Beta: realtime=v1`: that header asks for the beta protocol, whose transcription
  // session is set up by another event (`transcription_session.update`).
  const ws = new WebSocket(realtimeUrl(config.baseUrl), {
    headers: config.apiKey ? { Authorization: `Bearer ${config.apiKey}` } : {},
    maxPayload: config.maxMessageBytes,
    handshakeTimeout: config.connectTimeoutMs,
  });

  const fail = (said: string, retryable = true, cause?: unknown) => {
    if (results.closed || inner) return;
    // A vendor's own words may echo what it was sent: never the key.
    const description = scrub(said);
    logger.warn({ vendor: 'openai', reason: description }, 'openai realtime transcription failed');
    results.fail(new SpeechError(`openai transcription: ${description}`, 'stt_failed', retryable, cause));
    stop();
  };
  const stop = () => {
    timers.abort();
    held = null;
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
  };
  const end = () => {
    if (closing) return;
    closing = true;
    results.close();
    stop();
    inner?.close();
  };

  /** Gives out the answers known, oldest first, up to the first still awaited. */
  const emit = () => {
    for (let answer = answers[0]; answer && answer.text !== null; answer = answers[0]) {
      answers.shift();
      results.push({ kind: 'final', text: answer.text, at: clock.now() });
    }
  };

  /** The server has no socket: the file API takes the audio held and everything after. */
  function fallBack(status: number, to: (status: number) => STTStream) {
    const replay = held ?? [];
    held = null;
    timers.abort();
    const next = to(status);
    inner = next;
    ws.terminate();
    logger.info(
      { vendor: 'openai', status },
      'openai offers no realtime transcription here: using the file API',
    );
    for (const item of replay) {
      if (item === 'flush') next.flush();
      else next.push(item);
    }
    void (async () => {
      try {
        for await (const result of next.results) results.push(result);
      } catch (error) {
        results.fail(error);
      }
    })();
  }

  clock.sleep(config.connectTimeoutMs, timers.signal).then(
    () => {
      if (ws.readyState === WebSocket.CONNECTING) fail(`no connection within ${config.connectTimeoutMs} ms`);
    },
    () => undefined,
  );

  ws.on('unexpected-response', (_req, res) => {
    const status = res.statusCode ?? 0;
    res.resume();
    if (results.closed || inner) return;
    if (status === 401 || status === 403) fail(`the key was refused (HTTP ${status})`, false);
    else if (fallback && offersNoRealtime(status)) fallBack(status, fallback);
    else fail(`the realtime socket was refused (HTTP ${status})`, status >= 500 || status === 429);
  });
  ws.on('error', (err) =>
    fail(
      err.message.includes('Max payload') ? 'a message over the size limit' : 'the socket failed',
      true,
      err,
    ),
  );
  ws.on('close', (code) => {
    if (!closing) fail(`the socket closed mid-stream (code ${code})`);
  });
  ws.on('open', () => {
    if (results.closed || inner) return;
    ws.send(sessionUpdate({ model: config.model, language, prompt }));
    const replay = held ?? [];
    held = null;
    for (const item of replay) {
      if (item === 'flush') commit();
      else send(item);
    }
  });
  ws.on('message', (data, binary) => {
    if (results.closed || inner) return;
    if (binary) return fail('an unexpected binary message');
    const message = parseRealtimeMessage(String(data));
    switch (message.kind) {
      case 'garbage':
        return fail('a message that is not realtime JSON');
      case 'error':
        return fail(`an error event (${message.description})`);
      case 'transcription_failed':
        return fail(`the transcription failed (${message.description})`);
      case 'committed': {
        const answer = uncommitted.shift();
        if (!answer) return;
        answer.itemId = message.itemId;
        const text = early.get(message.itemId);
        if (text !== undefined) {
          early.delete(message.itemId);
          answer.text = text;
          emit();
        }
        return;
      }
      case 'completed': {
        const answer = answers.find((a) => a.itemId === message.itemId);
        if (!answer) {
          if (uncommitted.length > 0) early.set(message.itemId, message.transcript);
          return;
        }
        answer.text = message.transcript;
        return emit();
      }
      // Deltas come only once a commit is transcribing, after the flush: the final follows them
      // closely, and the voice session, told there are no partials, flushes at the speech end.
      default:
        return;
    }
  });

  function samplesOf(frame: AudioFrame): Int16Array {
    return toRealtime.convert(frame.samples, frame.sampleRate as SampleRate);
  }

  function send(frame: AudioFrame) {
    const samples = samplesOf(frame);
    if (samples.length === 0 || ws.readyState !== WebSocket.OPEN) return;
    appended += samples.length;
    ws.send(appendEvent(samples));
  }

  /** Ends the flush's utterance: a commit, or an empty final when too little audio came. */
  function commit() {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (appended < MIN_COMMIT_SAMPLES) {
      // OpenAI answers a commit of under 100 ms with an error: no words fit in it anyway.
      if (appended > 0) ws.send(clearEvent());
      appended = 0;
      answers.push({ itemId: null, text: '' });
      return emit();
    }
    appended = 0;
    const answer: Answer = { itemId: null, text: null };
    answers.push(answer);
    uncommitted.push(answer);
    ws.send(commitEvent());
    clock.sleep(config.finalTimeoutMs, timers.signal).then(
      () => {
        if (answer.text === null) fail(`no transcript within ${config.finalTimeoutMs} ms`);
      },
      () => undefined,
    );
  }

  if (streamOptions.signal?.aborted) end();
  streamOptions.signal?.addEventListener('abort', end, { once: true });

  return {
    results,
    push(frame) {
      if (results.closed) return;
      if (inner) return inner.push(frame);
      audioSinceFlush = true;
      if (!held) return send(frame);
      // A copy: the caller may reuse its frame buffers.
      held.push({ ...frame, samples: frame.samples.slice() });
      heldMs += (frame.samples.length * 1000) / frame.sampleRate;
      // The oldest audio goes first: what a slow handshake costs is the start of the speech.
      while (heldMs > config.maxHeldMs) {
        const oldest = held.findIndex((item) => item !== 'flush');
        const dropped = held[oldest];
        if (oldest < 0 || dropped === undefined || dropped === 'flush') break;
        heldMs -= (dropped.samples.length * 1000) / dropped.sampleRate;
        held.splice(oldest, 1);
      }
    },
    flush() {
      if (results.closed) return;
      if (inner) return inner.flush();
      if (!audioSinceFlush) return;
      audioSinceFlush = false;
      if (held) held.push('flush');
      else commit();
    },
    close() {
      streamOptions.signal?.removeEventListener('abort', end);
      end();
    },
  };
}
