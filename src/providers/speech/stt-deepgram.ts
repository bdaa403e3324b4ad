// Deepgram live transcription (docs/providers/deepgram.md): one WebSocket to `/v1/listen` per
// stream, linear16 audio at the stream's rate (telephone audio stays 8 kHz), interim results as
// partials. Deepgram finalizes on its own endpointing (`is_final`, `speech_final`); the voice
// session decides turns itself and sends `Finalize` on each flush: the finals since the last
// flush, up to the one marked `from_finalize`, make that flush's one final result.
import WebSocket from 'ws';
import { createAsyncQueue, silentLogger, systemClock, type Clock, type Logger } from '../../core/index.ts';
import { RateConverter, type AudioFrame, type SampleRate } from '../../media/index.ts';
import { deepgramUrl, httpBaseOf, parseDeepgramMessage } from './stt-deepgram-wire.ts';
import {
  SpeechError,
  type HostedSTT,
  type ProviderHealth,
  type STTOptions,
  type STTResult,
  type STTStream,
} from './types.ts';

export interface DeepgramSTTOptions {
  apiKey: string;
  /** Default `wss://api.deepgram.com`. */
  baseUrl?: string;
  /** Default `nova-3`. */
  model?: string;
  /** Deepgram's own endpointing silence, ms (default 300). */
  endpointingMs?: number;
  /** `utterance_end_ms` (default 1000). */
  utteranceEndMs?: number;
  /** A Finalize with no answer this long is answered with the finals so far (default 600 ms of `clock`). */
  finalizeTimeoutMs?: number;
  /** A KeepAlive goes out after this long without audio (default 4000 ms of `clock`). */
  keepAliveMs?: number;
  /** The handshake may take this long (default 5000 ms of `clock`). */
  connectTimeoutMs?: number;
  /** A message larger than this fails the stream (default 1 MiB). */
  maxMessageBytes?: number;
  /** Audio held while the socket opens, at most (default 10 000 ms). */
  maxHeldMs?: number;
  clock?: Clock;
  logger?: Logger;
}

export const DEEPGRAM_DEFAULT_BASE_URL = 'wss://api.deepgram.com';
export const DEEPGRAM_DEFAULT_MODEL = 'nova-3';

export function createDeepgramSTT(options: DeepgramSTTOptions): HostedSTT {
  const baseUrl = (options.baseUrl ?? DEEPGRAM_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const model = options.model ?? DEEPGRAM_DEFAULT_MODEL;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger();
  const keepAliveMs = options.keepAliveMs ?? 4000;
  const finalizeTimeoutMs = options.finalizeTimeoutMs ?? 600;
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const maxPayload = options.maxMessageBytes ?? 1024 * 1024;
  const maxHeldMs = options.maxHeldMs ?? 10_000;
  const headers = { Authorization: `Token ${options.apiKey}` };

  function stream(streamOptions: STTOptions = {}): STTStream {
    const results = createAsyncQueue<STTResult>();
    const rate: SampleRate = streamOptions.sampleRate ?? 16000;
    const url = deepgramUrl(baseUrl, {
      model,
      rate,
      language: streamOptions.language ?? 'en-US',
      keywords: streamOptions.keywords ?? [],
      endpointingMs: options.endpointingMs ?? 300,
      utteranceEndMs: options.utteranceEndMs ?? 1000,
    });
    const toRate = new RateConverter(rate);
    /** Audio (binary) and Finalize messages (text) waiting for the socket to open. */
    let held: (Buffer | string)[] | null = [];
    let heldMs = 0;
    /** Finals of Deepgram's own since the last flush was answered. */
    let pieces: string[] = [];
    let pendingFlushes = 0;
    /** Flushes answered so far. */
    let flushCount = 0;
    /** Whether Deepgram has interim words it has not finalized yet. */
    let unfinalized = false;
    const sendFinalize = () => {
      const finalize = JSON.stringify({ type: 'Finalize' });
      if (held) held.push(finalize);
      else if (ws.readyState === WebSocket.OPEN) ws.send(finalize);
    };
    /** The oldest unanswered flush gets the finals so far. */
    const answerFlush = (confidence?: number) => {
      pendingFlushes -= 1;
      flushCount += 1;
      results.push({
        kind: 'final',
        text: pieces.join(' '),
        at: clock.now(),
        ...(confidence !== undefined ? { confidence } : {}),
      });
      pieces = [];
    };
    let audioSinceFlush = false;
    let lastAudioAt = clock.now();
    let closing = false;
    const timers = new AbortController();

    const ws = new WebSocket(url, { headers, maxPayload, handshakeTimeout: connectTimeoutMs });

    const fail = (said: string, retryable = true, cause?: unknown) => {
      if (results.closed) return;
      // A vendor's own words may echo what it was sent: never the key.
      const description = options.apiKey ? said.split(options.apiKey).join('[redacted]') : said;
      logger.warn({ vendor: 'deepgram', reason: description }, 'deepgram stream failed');
      results.fail(new SpeechError(`deepgram: ${description}`, 'stt_failed', retryable, cause));
      stop();
    };
    const stop = () => {
      timers.abort();
      held = null;
      if (ws.readyState === WebSocket.OPEN) {
        // CloseStream makes Deepgram send what it holds and close; we no longer wait for it.
        ws.send(JSON.stringify({ type: 'CloseStream' }));
        ws.close(1000);
      } else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    };
    const end = () => {
      if (closing) return;
      closing = true;
      results.close();
      stop();
    };

    clock.sleep(connectTimeoutMs, timers.signal).then(
      () => {
        if (ws.readyState === WebSocket.CONNECTING) fail(`no connection within ${connectTimeoutMs} ms`);
      },
      () => undefined,
    );

    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 || status === 403) fail(`the key was refused (HTTP ${status})`, false);
      else fail(`the connection was refused (HTTP ${status})`, status >= 500 || status === 429);
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
      for (const bytes of held ?? []) ws.send(bytes);
      held = null;
      void keepAlive();
    });
    ws.on('message', (data, binary) => {
      if (results.closed) return;
      if (binary) return fail('an unexpected binary message');
      const message = parseDeepgramMessage(String(data));
      if (message.kind === 'garbage') return fail('a message that is not Deepgram JSON');
      if (message.kind === 'error') return fail(`an error message (${message.description})`);
      const now = clock.now();
      if (message.kind === 'utterance_end') {
        if (pieces.length > 0)
          results.push({ kind: 'partial', text: pieces.join(' '), at: now, endOfUtterance: true });
        return;
      }
      if (message.kind !== 'results') return;
      unfinalized = !message.isFinal && message.transcript !== '';
      if (!message.isFinal) {
        const text = [...pieces, message.transcript].filter(Boolean).join(' ');
        if (text) results.push({ kind: 'partial', text, at: now });
        return;
      }
      if (message.transcript) pieces.push(message.transcript);
      // Deepgram's endpointing found the end of speech: the session may take the turn now.
      if (message.speechFinal && !message.fromFinalize && pieces.length > 0)
        results.push({ kind: 'partial', text: pieces.join(' '), at: now, endOfUtterance: true });
      if (message.fromFinalize && pendingFlushes > 0) {
        answerFlush(message.confidence);
      }
    });

    async function keepAlive() {
      while (!timers.signal.aborted) {
        const due = lastAudioAt + keepAliveMs - clock.now();
        try {
          await clock.sleep(Math.max(1, due), timers.signal);
        } catch {
          return;
        }
        if (ws.readyState !== WebSocket.OPEN) return;
        if (clock.now() - lastAudioAt >= keepAliveMs) {
          ws.send(JSON.stringify({ type: 'KeepAlive' }));
          lastAudioAt = clock.now();
        }
      }
    }

    function bytesOf(frame: AudioFrame): Buffer {
      const samples = toRate.convert(frame.samples, frame.sampleRate as SampleRate);
      // A copy in the wire's byte order: the caller may reuse its frame buffers.
      const bytes = Buffer.allocUnsafe(samples.length * 2);
      for (let i = 0; i < samples.length; i += 1) bytes.writeInt16LE(samples[i] ?? 0, i * 2);
      return bytes;
    }

    if (streamOptions.signal?.aborted) end();
    streamOptions.signal?.addEventListener('abort', end, { once: true });

    return {
      results,
      push(frame) {
        if (results.closed) return;
        const bytes = bytesOf(frame);
        audioSinceFlush = true;
        lastAudioAt = clock.now();
        if (held) {
          held.push(bytes);
          heldMs += (bytes.length * 500) / rate;
          // The oldest audio goes first: what a slow handshake costs is the start of the speech.
          while (heldMs > maxHeldMs) {
            const oldest = held.findIndex((m) => typeof m !== 'string');
            if (oldest < 0) break;
            heldMs -= ((held[oldest] as Buffer).length * 500) / rate;
            held.splice(oldest, 1);
          }
          return;
        }
        if (ws.readyState === WebSocket.OPEN) ws.send(bytes);
      },
      flush() {
        if (results.closed || !audioSinceFlush) return;
        audioSinceFlush = false;
        pendingFlushes += 1;
        // Deepgram answers a Finalize only when it still holds audio: after its own endpointing
        // finalized everything, none comes. Then the finals so far answer the flush (a late
        // answer's words go to the next one).
        const flushed = flushCount + pendingFlushes;
        // Words still interim: Deepgram holds audio and will answer (a stall is the failover's).
        if (unfinalized) return sendFinalize();
        clock.sleep(finalizeTimeoutMs, timers.signal).then(
          () => {
            if (!results.closed && flushCount < flushed) answerFlush();
          },
          () => undefined,
        );
        sendFinalize();
      },
      close() {
        streamOptions.signal?.removeEventListener('abort', end);
        end();
      },
    };
  }

  async function check(signal?: AbortSignal): Promise<ProviderHealth> {
    try {
      const res = await fetch(`${httpBaseOf(baseUrl)}/v1/projects`, {
        headers,
        ...(signal ? { signal } : {}),
      });
      await res.body?.cancel();
      if (res.ok) return { ok: true };
      if (res.status === 401 || res.status === 403)
        return { ok: false, problem: 'bad_key', reason: `Deepgram refused the key (HTTP ${res.status})` };
      return { ok: false, problem: 'bad_response', reason: `Deepgram answered HTTP ${res.status}` };
    } catch {
      return {
        ok: false,
        problem: 'unreachable',
        reason: `Deepgram could not be reached at ${httpBaseOf(baseUrl)}`,
      };
    }
  }

  return { name: 'deepgram', partials: true, stream, check };
}
