import type { WebSocket } from 'ws';
import type { SampleRate } from '../../src/media/index.ts';
import { chunksOf, fakeSpeech, listenFakeHost, sendJson, yieldTurn } from '../tts-server-audio.ts';

// A fake Cartesia: `GET /voices` (paged: `data`, `has_more`, `starting_after`) and the TTS
// WebSocket (`/tts/websocket?cartesia_version=…`), speaking Cartesia's documented messages per
// context: `chunk` (base64 audio), `timestamps` (word times in s from the context's start) and
// `done`, or `error`; inputs with `continue: true` accumulate, `continue: false` speaks, `cancel`
// stops. The audio is data speech of the transcript at the `output_format` asked, so tests read
// the words back exactly. Switches make it fail.

export interface CartesiaBehaviour {
  refuse?: number;
  stall?: 'upgrade' | 'audio';
  after?: 'drop' | 'garbage' | 'oversized' | 'error';
  wrongRate?: boolean;
  errorText?: string;
  chunkBytes?: number;
}

export interface CartesiaConnection {
  query: Record<string, string>;
  /** Whether `Authorization: Bearer <key>` was right (the key itself is not kept). */
  keyOk: boolean;
  version: string | undefined;
  messages: Record<string, unknown>[];
  /** Contexts cancelled by the client. */
  cancelled: string[];
  closed: boolean;
}

export interface FakeCartesia {
  baseUrl: string;
  httpBaseUrl: string;
  connections: CartesiaConnection[];
  voiceRequests: { keyOk: boolean; query: Record<string, string> }[];
  behave(behaviour: CartesiaBehaviour): void;
  close(): Promise<void>;
}

export interface FakeCartesiaOptions {
  apiKey: string;
  voices?: { id: string; name: string; language: string; description: string; gender?: string }[];
}

interface Context {
  transcript: string;
  speed: number;
  rate: SampleRate;
  stop: boolean;
  speaking: boolean;
}

export async function createFakeCartesia(options: FakeCartesiaOptions): Promise<FakeCartesia> {
  const connections: CartesiaConnection[] = [];
  const voiceRequests: FakeCartesia['voiceRequests'] = [];
  let behaviour: CartesiaBehaviour = {};
  const voices = options.voices ?? [
    { id: 'voice-katie', name: 'Katie', language: 'en', description: 'A friendly agent', gender: 'feminine' },
    { id: 'voice-marco', name: 'Marco', language: 'it', description: 'A calm narrator', gender: 'masculine' },
  ];

  function speak(ws: WebSocket, conn: CartesiaConnection) {
    const contexts = new Map<string, Context>();
    const b = behaviour;
    const send = (m: object) => ws.send(JSON.stringify(m));

    async function generate(id: string, c: Context) {
      c.speaking = true;
      if (b.stall === 'audio') return;
      const rate: SampleRate = b.wrongRate ? (c.rate === 8000 ? 16000 : 8000) : c.rate;
      const text = c.transcript.trim();
      const speech = fakeSpeech(text, rate, 'pcm_s16le', c.speed);
      const chunks = chunksOf(speech.bytes, b.chunkBytes ?? 3001);
      const words = text.split(/\s+/);
      const sPerWord = speech.ms / 1000 / words.length;
      for (const [i, chunk] of chunks.entries()) {
        await yieldTurn();
        if (c.stop || ws.readyState !== ws.OPEN) return;
        if (i === 1 && b.after) {
          if (b.after === 'drop') return ws.terminate();
          if (b.after === 'garbage') return ws.send('<html>bad gateway</html>');
          if (b.after === 'oversized')
            return send({ type: 'chunk', data: 'A'.repeat(400_000), context_id: id });
          return send({
            type: 'error',
            context_id: id,
            status_code: 500,
            done: true,
            error: `Generation failed ${b.errorText ?? ''}`,
          });
        }
        send({
          type: 'chunk',
          data: chunk.toString('base64'),
          done: false,
          status_code: 206,
          step_time: 1,
          context_id: id,
        });
        // The words whose end falls in this chunk, timed from the context's start.
        const from = (i * speech.ms) / chunks.length / 1000;
        const to = ((i + 1) * speech.ms) / chunks.length / 1000;
        const timed = words.map((w, k) => ({ w, start: k * sPerWord, end: (k + 1) * sPerWord }));
        const here = timed.filter((t) => t.end > from && t.end <= to + 1e-9);
        if (here.length) {
          send({
            type: 'timestamps',
            context_id: id,
            status_code: 206,
            done: false,
            word_timestamps: {
              words: here.map((t) => t.w),
              start: here.map((t) => t.start),
              end: here.map((t) => t.end),
            },
          });
        }
      }
      contexts.delete(id);
      send({ type: 'done', done: true, status_code: 200, context_id: id });
    }

    ws.on('message', (data) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return send({ type: 'error', status_code: 400, done: true, error: 'invalid JSON' });
      }
      conn.messages.push(m);
      const id = typeof m.context_id === 'string' ? m.context_id : '';
      if (m.cancel === true) {
        conn.cancelled.push(id);
        const c = contexts.get(id);
        if (c) c.stop = true;
        return;
      }
      const format = m.output_format as
        { container?: string; encoding?: string; sample_rate?: number } | undefined;
      if (
        format?.container !== 'raw' ||
        format.encoding !== 'pcm_s16le' ||
        ![8000, 16000, 24000].includes(format.sample_rate ?? 0)
      ) {
        return send({
          type: 'error',
          context_id: id,
          status_code: 400,
          done: true,
          error: 'unsupported output_format',
        });
      }
      let c = contexts.get(id);
      if (!c) {
        const speed = (m.generation_config as { speed?: number } | undefined)?.speed ?? 1;
        contexts.set(
          id,
          (c = {
            transcript: '',
            speed,
            rate: format.sample_rate as SampleRate,
            stop: false,
            speaking: false,
          }),
        );
      }
      c.transcript += typeof m.transcript === 'string' ? m.transcript : '';
      if (m.continue !== true && !c.speaking) void generate(id, c);
    });
    ws.on('close', () => {
      conn.closed = true;
      for (const c of contexts.values()) c.stop = true;
    });
  }

  const bearer = `Bearer ${options.apiKey}`;
  const host = await listenFakeHost({
    http(req, res, url) {
      const keyOk = req.headers.authorization === bearer;
      if (req.method === 'GET' && url.pathname === '/voices') {
        const query = Object.fromEntries(url.searchParams);
        voiceRequests.push({ keyOk, query });
        if (!keyOk) return sendJson(res, 401, { error: 'Invalid API key' });
        const limit = Number(query.limit ?? 10);
        const from = query.starting_after ? voices.findIndex((v) => v.id === query.starting_after) + 1 : 0;
        const data = voices.slice(from, from + limit);
        return sendJson(res, 200, { data, has_more: from + limit < voices.length });
      }
      sendJson(res, 404, { error: 'Not found' });
    },
    upgrade(req, url) {
      if (url.pathname !== '/tts/websocket') return 404;
      const conn: CartesiaConnection = {
        query: Object.fromEntries(url.searchParams),
        keyOk: req.headers.authorization === bearer,
        version:
          url.searchParams.get('cartesia_version') ?? (req.headers['cartesia-version'] as string | undefined),
        messages: [],
        cancelled: [],
        closed: false,
      };
      connections.push(conn);
      if (!conn.keyOk) return 401;
      if (!conn.version) return 400;
      if (behaviour.refuse) return behaviour.refuse;
      if (behaviour.stall === 'upgrade') return 'hold';
      return (ws) => speak(ws, conn);
    },
  });

  return {
    baseUrl: host.wsUrl,
    httpBaseUrl: host.httpUrl,
    connections,
    voiceRequests,
    behave(next) {
      behaviour = next;
    },
    close: () => host.close(),
  };
}
