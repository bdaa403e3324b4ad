import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { createDataSpeechReader, dataSpeechFrames, type SampleRate } from '../../src/media/index.ts';

// A fake OpenAI-compatible speech server under `{base}/v1`: `POST /audio/speech` streams raw
// 24 kHz 16-bit PCM (`response_format: pcm`) of data speech of its `input`, in chunks that split
// samples and frames; `POST /audio/transcriptions` takes OpenAI's multipart form and answers
// `{text}` read from the WAV's data speech; `GET /models` lists its models. With `realtime`, it
// also serves the realtime transcription socket (`/realtime?intent=transcription`): 24 kHz audio
// appended, each commit answered with `input_audio_buffer.committed`, a delta per word and the
// completed transcript, read from the committed audio's data speech; a commit of under 100 ms is
// an error, as OpenAI's. Without `realtime` the handshake gets a 404, as from a self-hosted
// server. It checks the Bearer key when it has one, records what it got (never the key), and
// fails on request.

export interface OpenAISpeechBehaviour {
  /** Answer every request with this HTTP status. */
  status?: number;
  /** Never answer. */
  stall?: boolean;
  /** Speech: drop the connection after the first chunk; send JSON with 200; an odd byte count. */
  speech?: 'drop' | 'json' | 'odd';
  /** Transcriptions (and realtime commits' completions) answered in reverse order, two by two. */
  reverse?: boolean;
  /** Realtime: after this many audio bytes, drop the socket, send garbage, an oversized message or an error. */
  after?: { bytes: number; then: 'drop' | 'garbage' | 'oversized' | 'error' };
  /** Realtime: acknowledge commits but never transcribe them. */
  mute?: boolean;
  /** Realtime: answer the handshake with this HTTP status (the file API still works). */
  refuseRealtime?: number;
}

export interface OpenAIRealtimeConnection {
  /** The path and query under the base (`/realtime?intent=transcription`). */
  path: string;
  /** The `session` of each `session.update`. */
  sessions: unknown[];
  /** The types of the events received, in order, `input_audio_buffer.append` included. */
  events: string[];
  /** Audio bytes appended (24 kHz 16-bit). */
  audioBytes: number;
  /** Each commit: its length in samples and what it said. */
  commits: { samples: number; text: string }[];
  closed: boolean;
  /** The close code, once closed (1006: dropped without a close frame). */
  closeCode?: number;
}

export interface OpenAISpeechRequest {
  path: string;
  keyOk: boolean;
  /** The JSON body (speech) or the form's fields without the file (transcriptions). */
  fields: Record<string, unknown>;
  /** Transcriptions: the WAV's rate and length in samples. */
  wav?: { rate: number; samples: number };
}

export interface FakeOpenAISpeech {
  /** `http://127.0.0.1:PORT{prefix}/v1`: the adapters' base URL. */
  baseUrl: string;
  requests: OpenAISpeechRequest[];
  /** Every realtime handshake: its path and the status answered (101 accepted, 0 never answered). */
  upgrades: { path: string; status: number }[];
  realtime: OpenAIRealtimeConnection[];
  behave(behaviour: OpenAISpeechBehaviour): void;
  close(): Promise<void>;
}

const RATE = 24000;

/** Data speech of `text` at 24 kHz: each 20 ms symbol frame held at its level. */
function speechPcm(text: string): Buffer {
  const frames = dataSpeechFrames(text);
  const out = Buffer.alloc(frames.length * 480 * 2);
  frames.forEach((frame, i) => {
    const level = frame.samples[0] ?? 0;
    for (let j = 0; j < 480; j += 1) out.writeInt16LE(level, (i * 480 + j) * 2);
  });
  return out;
}

function heardIn(wav: Buffer): { text: string; rate: number; samples: number } {
  return heardInPcm(wav.subarray(44), wav.readUInt32LE(24) as SampleRate);
}

function heardInPcm(data: Buffer, rate: SampleRate): { text: string; rate: number; samples: number } {
  const n = (rate * 20) / 1000;
  const reader = createDataSpeechReader();
  for (let at = 0; at + n * 2 <= data.length; at += n * 2) {
    const samples = new Int16Array(n);
    for (let i = 0; i < n; i += 1) samples[i] = data.readInt16LE(at + i * 2);
    reader.push({ samples, sampleRate: rate, at: 0 });
  }
  return { text: reader.text.trim(), rate, samples: data.length / 2 };
}

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

export async function createFakeOpenAISpeech(
  options: { apiKey?: string; prefix?: string; models?: string[]; realtime?: boolean } = {},
): Promise<FakeOpenAISpeech> {
  const prefix = `${options.prefix ?? ''}/v1`;
  const requests: OpenAISpeechRequest[] = [];
  const upgrades: { path: string; status: number }[] = [];
  const realtime: OpenAIRealtimeConnection[] = [];
  let behaviour: OpenAISpeechBehaviour = {};
  const waiting: (() => void)[] = [];

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const b = behaviour;
    const path = (req.url ?? '').slice(prefix.length);
    const keyOk = !options.apiKey || req.headers.authorization === `Bearer ${options.apiKey}`;
    const raw = await body(req);
    if (b.stall) return;
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (!keyOk)
      return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
    if (b.status) return json(b.status, { error: { message: 'failure' } });
    if (req.method === 'GET' && path === '/models')
      return json(200, {
        object: 'list',
        data: (options.models ?? ['gpt-4o-mini-tts', 'gpt-4o-mini-transcribe']).map((id) => ({ id })),
      });
    if (req.method === 'POST' && path === '/audio/speech') {
      const fields = JSON.parse(raw.toString()) as Record<string, unknown>;
      requests.push({ path, keyOk, fields });
      if (b.speech === 'json') return json(200, { error: { message: 'not audio' } });
      let pcm = speechPcm(String(fields.input ?? ''));
      if (b.speech === 'odd') pcm = Buffer.concat([pcm, Buffer.from([1])]);
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      for (let at = 0; at < pcm.length; at += 1001) {
        res.write(pcm.subarray(at, at + 1001));
        if (b.speech === 'drop') {
          res.socket?.destroy();
          return;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
      return;
    }
    if (req.method === 'POST' && path === '/audio/transcriptions') {
      const form = await new Request('http://x', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: raw,
      }).formData();
      const file = form.get('file');
      if (!(file instanceof Blob)) return json(400, { error: { message: 'file is required' } });
      const heard = heardIn(Buffer.from(await file.arrayBuffer()));
      const fields = Object.fromEntries(
        [...form.entries()].filter(([k]) => k !== 'file').map(([k, v]) => [k, String(v)]),
      );
      requests.push({ path, keyOk, fields, wav: { rate: heard.rate, samples: heard.samples } });
      const answer = () => json(200, { text: heard.text });
      if (!b.reverse) return answer();
      // The first waits for the second: answers cross.
      waiting.push(answer);
      if (waiting.length === 2) {
        waiting[1]!();
        waiting[0]!();
        waiting.length = 0;
      }
      return;
    }
    json(404, { error: { message: 'not found' } });
  }

  const server = createServer((req, res) => void handle(req, res));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const b = behaviour;
    const raw = req.url ?? '';
    const path = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
    const url = new URL(path, 'http://x');
    const keyOk = !options.apiKey || req.headers.authorization === `Bearer ${options.apiKey}`;
    const found =
      options.realtime &&
      raw.startsWith(prefix) &&
      url.pathname === '/realtime' &&
      url.searchParams.get('intent') === 'transcription';
    const status = !keyOk ? 401 : !found ? 404 : (b.refuseRealtime ?? b.status ?? 0);
    upgrades.push({ path, status: b.stall ? 0 : status || 101 });
    // Never answered: the handshake hangs (close() destroys the socket).
    if (b.stall) return;
    if (status) {
      const message = status === 401 ? 'Incorrect API key provided' : 'failure';
      socket.end(
        `HTTP/1.1 ${status} Refused\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n` +
          JSON.stringify({ error: { message } }),
      );
      return;
    }
    const key = options.apiKey ?? '';
    wss.handleUpgrade(req, socket, head, (ws) => serveRealtime(ws, path, b, key));
  });

  let items = 0;
  function serveRealtime(ws: WebSocket, path: string, b: OpenAISpeechBehaviour, key: string) {
    const conn: OpenAIRealtimeConnection = {
      path,
      sessions: [],
      events: [],
      audioBytes: 0,
      commits: [],
      closed: false,
    };
    realtime.push(conn);
    let buffer: Buffer[] = [];
    let failed = false;
    let previous: string | null = null;
    const held: (() => void)[] = [];
    const send = (event: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: `event_${(items += 1)}`, ...event }));
    };
    const error = (code: string, message: string) =>
      send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null } });
    send({ type: 'session.created', session: { type: 'transcription', id: 'sess_1' } });

    ws.on('message', (data, binary) => {
      if (failed) return;
      let event: { type?: unknown; session?: unknown; audio?: unknown };
      try {
        event = binary ? {} : (JSON.parse(String(data)) as typeof event);
      } catch {
        return error('invalid_json', 'The event is not valid JSON.');
      }
      const type = typeof event.type === 'string' ? event.type : '';
      conn.events.push(type);
      if (type === 'session.update') {
        conn.sessions.push(event.session);
        return send({ type: 'session.updated', session: event.session });
      }
      if (type === 'input_audio_buffer.append') {
        const bytes = Buffer.from(typeof event.audio === 'string' ? event.audio : '', 'base64');
        conn.audioBytes += bytes.length;
        buffer.push(bytes);
        const after = b.after;
        if (after && conn.audioBytes >= after.bytes) {
          failed = true;
          if (after.then === 'drop') ws.terminate();
          else if (after.then === 'garbage') ws.send('{"type":"conversation.item.input_audio_transc');
          else if (after.then === 'oversized')
            ws.send(JSON.stringify({ type: 'rate_limits.updated', pad: 'x'.repeat(2 * 1024 * 1024) }));
          // Vendors' messages may echo what they were sent: the adapter must not pass the key on.
          else error('server_error', `The server had an error while processing your request (key ${key}).`);
        }
        return;
      }
      if (type === 'input_audio_buffer.clear') {
        buffer = [];
        return send({ type: 'input_audio_buffer.cleared' });
      }
      if (type === 'input_audio_buffer.commit') {
        const audio = Buffer.concat(buffer);
        buffer = [];
        const samples = audio.length / 2;
        if (samples < RATE / 10)
          return error(
            'input_audio_buffer_commit_empty',
            `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${samples / (RATE / 1000)}ms of audio.`,
          );
        const itemId = `item_${(items += 1)}`;
        const heard = heardInPcm(audio, RATE);
        conn.commits.push({ samples, text: heard.text });
        send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: itemId });
        previous = itemId;
        if (b.mute) return;
        for (const word of heard.text.match(/\S+\s*/g) ?? [])
          send({
            type: 'conversation.item.input_audio_transcription.delta',
            item_id: itemId,
            content_index: 0,
            delta: word,
          });
        const complete = () =>
          send({
            type: 'conversation.item.input_audio_transcription.completed',
            item_id: itemId,
            content_index: 0,
            transcript: heard.text,
            usage: { type: 'duration', seconds: samples / RATE },
          });
        if (!b.reverse) return complete();
        // The first waits for the second: completions cross.
        held.push(complete);
        if (held.length === 2) {
          held[1]!();
          held[0]!();
          held.length = 0;
        }
        return;
      }
      error('invalid_request_error', `Invalid value: '${type}'.`);
    });
    ws.on('close', (code) => {
      conn.closed = true;
      conn.closeCode = code;
    });
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    upgrades,
    realtime,
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const OPENAI_FAKE_RATE = RATE;
