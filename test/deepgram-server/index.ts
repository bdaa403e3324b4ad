import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { createDataSpeechReader, type SampleRate } from '../../src/media/index.ts';

// A fake Deepgram: `GET /v1/projects` (the key probe) and live transcription over
// `/v1/listen`, speaking Deepgram's documented messages: `Results` (interim while words come,
// `is_final` with `speech_final` after a stretch of silence, `from_finalize` after a `Finalize`),
// `SpeechStarted`, `UtteranceEnd`, `Metadata` after `CloseStream`, and a close after 10 s (here
// `idleCloseMs`) without audio or `KeepAlive` (NET-0001). It hears data speech
// (src/media/data-speech.ts) at the `sample_rate` asked, so tests read back exact words.
// Switches make it fail as hosted vendors do.

export interface DeepgramBehaviour {
  /** Answer the upgrade with this HTTP status. */
  refuse?: number;
  /** Accept, then never answer anything. */
  stall?: boolean;
  /** Answer a Finalize only when it holds audio not yet finalized (as Deepgram documents). */
  finalizeOnlyWithAudio?: boolean;
  /** After this many audio bytes: drop the socket, send garbage, an oversized message, or an error. */
  after?: { bytes: number; then: 'drop' | 'garbage' | 'oversized' | 'error' };
}

export interface DeepgramConnection {
  query: Record<string, string>;
  /** `keyterm`/`keywords` may repeat: all their values. */
  terms: string[];
  keyOk: boolean;
  /** Text messages received, parsed (KeepAlive, Finalize, CloseStream...). */
  controls: { type: string; at: number }[];
  audioBytes: number;
  closed: boolean;
}

export interface FakeDeepgram {
  /** `ws://127.0.0.1:PORT`: the adapter's base URL. */
  baseUrl: string;
  connections: DeepgramConnection[];
  behave(behaviour: DeepgramBehaviour): void;
  close(): Promise<void>;
}

const FRAME_MS = 20;
/** Silence (ms) after speech that makes Deepgram's endpointing send `speech_final`. */
const ENDPOINTING_MS = 300;

export async function createFakeDeepgram(options: {
  apiKey: string;
  idleCloseMs?: number;
}): Promise<FakeDeepgram> {
  const connections: DeepgramConnection[] = [];
  let behaviour: DeepgramBehaviour = {};
  const keyOk = (req: IncomingMessage) => req.headers.authorization === `Token ${options.apiKey}`;

  const http = createServer((req, res) => {
    if (req.url?.startsWith('/v1/projects')) {
      const ok = keyOk(req);
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          ok ? { projects: [{ project_id: 'p1', name: 'Parley' }] } : { err_code: 'INVALID_AUTH' },
        ),
      );
      return;
    }
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<Socket>();
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const b = behaviour;
    const status = !keyOk(req) ? 401 : url.pathname !== '/v1/listen' ? 404 : b.refuse;
    if (status) {
      socket.end(
        `HTTP/1.1 ${status} Refused\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{"err_code":"refused"}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, url, b));
  });

  function serve(ws: WebSocket, url: URL, b: DeepgramBehaviour) {
    const conn: DeepgramConnection = {
      query: Object.fromEntries(url.searchParams),
      terms: [...url.searchParams.getAll('keyterm'), ...url.searchParams.getAll('keywords')],
      keyOk: true,
      controls: [],
      audioBytes: 0,
      closed: false,
    };
    connections.push(conn);
    const rate = Number(conn.query.sample_rate) as SampleRate;
    const frameBytes = (rate * FRAME_MS * 2) / 1000;
    const reader = createDataSpeechReader();
    let carry = Buffer.alloc(0);
    let seconds = 0;
    let heard = '';
    let quietMs = 0;
    let speaking = false;
    let failed = false;
    let idle: NodeJS.Timeout | undefined;
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(
        () => ws.close(1011, 'NET-0001: no audio received within the timeout'),
        options.idleCloseMs ?? 10_000,
      );
    };
    armIdle();
    const send = (message: unknown) => {
      if (!b.stall && ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const results = (text: string, final: boolean, extra: Record<string, unknown> = {}) =>
      send({
        type: 'Results',
        channel_index: [0, 1],
        duration: 0.5,
        start: seconds,
        is_final: final,
        speech_final: false,
        from_finalize: false,
        channel: { alternatives: [{ transcript: text, confidence: 0.99, words: [] }] },
        metadata: { request_id: 'req-1', model_info: { name: conn.query.model } },
        ...extra,
      });
    /** The words heard since the last final, out as a final (with the reason's flags). */
    const finish = (extra: Record<string, unknown>) => {
      const text = reader.text.trim();
      reader.reset();
      heard = '';
      results(text, true, extra);
    };

    ws.on('message', (data, binary) => {
      if (failed) return;
      armIdle();
      if (!binary) {
        const message = JSON.parse(String(data)) as { type: string };
        conn.controls.push({ type: message.type, at: Date.now() });
        if (message.type === 'Finalize' && (!b.finalizeOnlyWithAudio || reader.text.trim()))
          finish({ from_finalize: true });
        if (message.type === 'CloseStream') {
          if (reader.text.trim()) finish({ speech_final: true });
          send({ type: 'Metadata', request_id: 'req-1', duration: seconds, channels: 1 });
          ws.close(1000);
        }
        return;
      }
      const bytes = Buffer.concat([carry, data as Buffer]);
      conn.audioBytes += (data as Buffer).length;
      const after = b.after;
      if (after && conn.audioBytes >= after.bytes) {
        failed = true;
        if (after.then === 'drop') ws.terminate();
        else if (after.then === 'garbage') ws.send('{"type":"Results","channel":');
        else if (after.then === 'oversized')
          ws.send(JSON.stringify({ type: 'Results', pad: 'x'.repeat(2 * 1024 * 1024) }));
        else ws.send(JSON.stringify({ type: 'Error', description: 'internal failure', variant: 'server' }));
        return;
      }
      let at = 0;
      for (; at + frameBytes <= bytes.length; at += frameBytes) {
        const samples = new Int16Array(frameBytes / 2);
        for (let i = 0; i < samples.length; i += 1) samples[i] = bytes.readInt16LE(at + i * 2);
        reader.push({ samples, sampleRate: rate, at: seconds * 1000 });
        seconds += FRAME_MS / 1000;
        const loud = samples.some((s) => Math.abs(s) > 1000);
        if (loud && !speaking) {
          speaking = true;
          send({ type: 'SpeechStarted', channel: [0, 1], timestamp: seconds });
        }
        quietMs = loud ? 0 : quietMs + FRAME_MS;
        const text = reader.text.trim();
        const words = text.lastIndexOf(' ') > 0 ? text.slice(0, text.lastIndexOf(' ')) : '';
        if (words && words !== heard) {
          heard = words;
          results(words, false);
        }
        if (speaking && quietMs >= ENDPOINTING_MS && text) {
          speaking = false;
          finish({ speech_final: true });
          send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: seconds - ENDPOINTING_MS / 1000 });
        }
      }
      carry = bytes.subarray(at);
    });
    ws.on('close', () => {
      clearTimeout(idle);
      conn.closed = true;
    });
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    baseUrl: `ws://127.0.0.1:${port}`,
    connections,
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
