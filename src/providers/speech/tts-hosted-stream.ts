import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { createAsyncQueue, type Clock, type Logger } from '../../core/index.ts';
import type { SampleRate } from '../../media/index.ts';
import { createPcmFramer, type PcmFramer, type WireEncoding } from './tts-hosted-framer.ts';
import { createSegmentPlayout } from './tts-hosted-order.ts';
import { connectVendorSocket } from './tts-hosted-socket.ts';
import { SpeechError, type SynthesizedAudio, type TTSStream } from './types.ts';

// One TTS stream over a hosted vendor's WebSocket, shared by the ElevenLabs and Cartesia adapters:
// they differ only in their messages (a `TTSWire`). Each segment (flush) is one vendor context,
// opened as soon as it has text, so the vendor speaks while the text still streams in; at most
// `maxContexts` are open at once (ElevenLabs allows 5 per socket), later segments wait their turn.
// Audio is cut into 20 ms frames per segment and put out in segment order.

/** What a vendor message means to the stream. */
export type WireEvent =
  /** Audio of a context; `alignedMs` is how much speech the vendor says the chunk holds. */
  | { kind: 'audio'; context: string; audio: Uint8Array; alignedMs?: number }
  /** More of a context's speech is timed (timestamps sent apart from the audio). */
  | { kind: 'aligned'; context: string; ms: number }
  | { kind: 'done'; context: string }
  | { kind: 'error'; description: string; retryable: boolean }
  | { kind: 'ignore' };

/** A vendor's protocol for one stream. Message builders return the JSON objects to send, in order. */
export interface TTSWire {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly rate: SampleRate;
  readonly encoding: WireEncoding;
  /** Sends `text` on context `id`; `first` opens the context. */
  text(id: string, text: string, first: boolean): object[];
  /** The context's text is complete: speak the rest, then end it. */
  finish(id: string): object[];
  /** Stop the context now (close or abort). */
  cancel(id: string): object[];
  /** Nothing more will be sent on the socket. */
  bye(): object[];
  /** Reads one parsed message; throws when it cannot. */
  parse(message: unknown): WireEvent[];
}

export interface HostedStreamConfig {
  vendor: string;
  wire: TTSWire;
  clock: Clock;
  logger: Logger;
  connectTimeoutMs: number;
  /** A flushed segment with no word from the vendor for this long fails the stream. */
  stallTimeoutMs: number;
  maxPayload: number;
  maxContexts: number;
  /** Scrubbed from any vendor text that reaches an error (a vendor might echo it). */
  secret: string;
  signal?: AbortSignal | undefined;
}

interface Segment {
  index: number;
  id: string;
  text: string;
  sent: number;
  queued: boolean;
  opened: boolean;
  flushed: boolean;
  done: boolean;
  framer: PcmFramer;
  alignedMs: number;
}

/** Audio this much longer or shorter than the vendor's own timing is at another rate than asked. */
const RATE_RATIO_MAX = 1.8;
const RATE_RATIO_MIN = 0.55;
/** Timing shorter than this is too little to judge the rate by. */
const RATE_CHECK_MIN_MS = 1000;

export function openHostedStream(config: HostedStreamConfig): TTSStream {
  const { wire, clock, vendor, logger } = config;
  const queue = createAsyncQueue<SynthesizedAudio>();
  const playout = createSegmentPlayout(queue, wire.rate, clock);
  const stop = new AbortController();
  const tag = randomUUID().slice(0, 8);
  const byId = new Map<string, Segment>();
  const unopened: Segment[] = [];
  let current = segment(0);
  let opened = 0;
  let ws: WebSocket | null = null;
  let connecting = false;
  let outbox: object[] = [];
  let inputEnded = false;
  let finished = false; // ended, failed or cancelled: nothing more happens
  let cancelled = false; // closed or aborted: frames still queued are dropped
  let lastHeard = clock.now();
  let watching = false;

  function segment(index: number): Segment {
    const s: Segment = {
      index,
      id: `${tag}-${index}`,
      text: '',
      sent: 0,
      queued: false,
      opened: false,
      flushed: false,
      done: false,
      framer: createPcmFramer(wire.rate, wire.encoding),
      alignedMs: 0,
    };
    byId.set(s.id, s);
    return s;
  }

  const scrub = (text: string) => (config.secret ? text.split(config.secret).join('[key]') : text);

  function send(messages: object[]) {
    if (ws && ws.readyState === ws.OPEN) for (const m of messages) ws.send(JSON.stringify(m));
    else outbox.push(...messages);
  }

  function teardown() {
    finished = true;
    stop.abort();
    config.signal?.removeEventListener('abort', cancel);
    const socket = ws;
    ws = null;
    if (!socket) return;
    socket.removeAllListeners('message');
    socket.removeAllListeners('close');
    if (socket.readyState === socket.OPEN) socket.close(1000);
    else socket.terminate();
  }

  function fail(error: SpeechError) {
    if (finished) return;
    logger.warn({ vendor, code: error.code, retryable: error.retryable }, 'tts stream failed');
    teardown();
    queue.fail(error);
  }

  function cancel() {
    if (cancelled) return;
    cancelled = true;
    if (finished) return;
    for (const s of byId.values()) if (s.opened && !s.done) send(wire.cancel(s.id));
    send(wire.bye());
    teardown();
    queue.close();
  }

  function maybeEnd() {
    if (finished || !inputEnded || opened > 0 || unopened.length > 0 || playout.waiting > 0) return;
    send(wire.bye());
    teardown();
    queue.close();
  }

  function connect() {
    if (ws || connecting || finished) return;
    connecting = true;
    connectVendorSocket({
      vendor,
      url: wire.url,
      headers: wire.headers,
      maxPayload: config.maxPayload,
      connectTimeoutMs: config.connectTimeoutMs,
      clock,
      signal: stop.signal,
    }).then(
      (socket) => {
        connecting = false;
        if (finished) return socket.close(1000);
        logger.debug({ vendor }, 'tts socket open');
        ws = socket;
        lastHeard = clock.now();
        socket.on('error', (err: Error & { code?: string }) =>
          fail(
            err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
              ? new SpeechError(`${vendor}: a message over ${config.maxPayload} bytes`, 'tts_failed', true)
              : new SpeechError(`${vendor}: the connection failed`, 'tts_failed', true, err),
          ),
        );
        socket.on('message', (data, isBinary) => receive(data, isBinary));
        socket.on('close', (code) => closed(code));
        const pending = outbox;
        outbox = [];
        send(pending);
      },
      (error: unknown) => {
        connecting = false;
        fail(
          error instanceof SpeechError
            ? error
            : new SpeechError(`${vendor}: could not connect`, 'tts_failed', true),
        );
      },
    );
  }

  function closed(code: number) {
    ws = null;
    if (finished) return;
    // Idle sockets may be closed by the vendor (inactivity): the next segment opens a new one.
    if (opened > 0 || unopened.length > 0 || playout.waiting > 0) {
      fail(
        new SpeechError(`${vendor}: the connection closed mid-segment (code ${code})`, 'tts_failed', true),
      );
    }
  }

  function openWaiting() {
    while (!finished && opened < config.maxContexts && unopened.length > 0) {
      const s = unopened.shift()!;
      s.opened = true;
      opened += 1;
      send(wire.text(s.id, s.text, true));
      s.sent = s.text.length;
      if (s.flushed) send(wire.finish(s.id));
      connect();
    }
  }

  function receive(data: WebSocket.RawData, isBinary: boolean) {
    if (finished) return;
    lastHeard = clock.now();
    let events: WireEvent[];
    try {
      if (isBinary) throw new Error('binary message');
      events = wire.parse(JSON.parse(String(data)));
    } catch (err) {
      return fail(new SpeechError(`${vendor}: a message that could not be read`, 'tts_failed', true, err));
    }
    for (const event of events) {
      if (finished) return;
      if (event.kind === 'error') {
        return fail(new SpeechError(`${vendor}: ${scrub(event.description)}`, 'tts_failed', event.retryable));
      }
      if (event.kind === 'ignore') continue;
      const s = byId.get(event.context);
      if (!s?.opened || s.done) continue; // a context of another stream, or one already ended
      if (event.kind === 'aligned') s.alignedMs += event.ms;
      else if (event.kind === 'audio') {
        s.alignedMs += event.alignedMs ?? 0;
        playout.frames(s.index, s.framer.push(event.audio));
      } else ended(s);
    }
  }

  function ended(s: Segment) {
    if (!s.flushed) {
      return fail(new SpeechError(`${vendor}: a segment ended before its text did`, 'tts_failed', true));
    }
    s.done = true;
    byId.delete(s.id);
    opened -= 1;
    const { rest, oddByte } = s.framer.end();
    if (oddByte) {
      return fail(
        new SpeechError(`${vendor}: audio ended on half a sample (not 16-bit PCM)`, 'tts_failed', true),
      );
    }
    const ratio = s.framer.ms / s.alignedMs;
    if (s.alignedMs >= RATE_CHECK_MIN_MS && (ratio > RATE_RATIO_MAX || ratio < RATE_RATIO_MIN)) {
      return fail(
        new SpeechError(`${vendor}: audio is not at the ${wire.rate} Hz asked for`, 'tts_failed', true),
      );
    }
    if (rest) playout.frames(s.index, [rest]);
    playout.end(s.index);
    openWaiting();
    maybeEnd();
  }

  async function watch() {
    if (watching) return;
    watching = true;
    try {
      while (!finished && playout.waiting > 0) {
        const quiet = clock.now() - lastHeard;
        if (quiet >= config.stallTimeoutMs) {
          return fail(
            new SpeechError(`${vendor}: no audio for ${config.stallTimeoutMs} ms`, 'tts_failed', true),
          );
        }
        await clock.sleep(config.stallTimeoutMs - quiet, stop.signal);
      }
    } catch {
      // stopped
    } finally {
      watching = false;
    }
  }

  function endSegment() {
    const s = current;
    const text = s.text.trim();
    if (!text) {
      s.text = '';
      return;
    }
    s.flushed = true;
    playout.text(s.index, text);
    if (s.opened) send(wire.finish(s.id));
    current = segment(s.index + 1);
    if (playout.waiting === 1) lastHeard = clock.now();
    void watch();
  }

  // Frames queued before close() or an abort are dropped: the reader sees the end at once.
  async function* audio(): AsyncGenerator<SynthesizedAudio> {
    for await (const item of queue) {
      if (cancelled) return;
      yield item;
    }
  }

  config.signal?.addEventListener('abort', cancel, { once: true });
  if (config.signal?.aborted) cancel();

  return {
    audio: audio(),
    pushText(text) {
      if (finished || inputEnded || !text) return;
      const s = current;
      s.text += text;
      if (s.opened) {
        send(wire.text(s.id, s.text.slice(s.sent), false));
        s.sent = s.text.length;
      } else if (!s.queued && s.text.trim()) {
        s.queued = true;
        unopened.push(s);
        openWaiting();
      }
    },
    flush() {
      if (!finished && !inputEnded) endSegment();
    },
    endInput() {
      if (finished || inputEnded) return;
      endSegment();
      inputEnded = true;
      maybeEnd();
    },
    close: cancel,
  };
}
