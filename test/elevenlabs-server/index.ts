import type { WebSocket } from 'ws';
import type { SampleRate } from '../../src/media/index.ts';
import { chunksOf, fakeSpeech, listenFakeHost, sendJson, yieldTurn } from '../tts-server-audio.ts';

// A fake ElevenLabs: `GET /v1/voices` and the multi-context TTS WebSocket
// (`/v1/text-to-speech/{voice}/multi-stream-input`), speaking ElevenLabs' documented messages:
// audio as base64 chunks with `alignment`/`normalizedAlignment` (the duration key spelled
// `charsDurationsMs` and `charDurationsMs` on alternate chunks, as both are seen in the wild),
// then `isFinal` per context after `close_context`. The audio is data speech of the text received,
// at the `output_format` asked, so tests read the words back exactly. Switches make it fail.

export interface ElevenLabsBehaviour {
  /** Answer the upgrade with this HTTP status. */
  refuse?: number;
  /** Never answer the upgrade ('upgrade'), or never send audio ('audio'). */
  stall?: 'upgrade' | 'audio';
  /** After the first audio chunk of a context: drop the socket, send garbage, an oversized message, or an error. */
  after?: 'drop' | 'garbage' | 'oversized' | 'error';
  /** Send audio at another rate than asked (8000 ↔ 16000). */
  wrongRate?: boolean;
  /** Text to echo in the error message (to check it is scrubbed). */
  errorText?: string;
  /** Bytes per audio chunk (default 3001: chunks split samples). */
  chunkBytes?: number;
}

export interface ElevenLabsConnection {
  voice: string;
  query: Record<string, string>;
  /** Whether the request carried the right `xi-api-key` (the key itself is not kept). */
  keyOk: boolean;
  /** Messages received, in order (an `xi_api_key` field would be removed). */
  messages: Record<string, unknown>[];
  closed: boolean;
}

export interface FakeElevenLabs {
  /** `ws://127.0.0.1:PORT`, the adapter's baseUrl. */
  baseUrl: string;
  httpBaseUrl: string;
  connections: ElevenLabsConnection[];
  /** Voice list requests, and whether their key was right. */
  voiceRequests: { keyOk: boolean }[];
  behave(behaviour: ElevenLabsBehaviour): void;
  close(): Promise<void>;
}

export interface FakeElevenLabsOptions {
  apiKey: string;
  voices?: { voice_id: string; name: string; labels?: Record<string, string>; preview_url?: string }[];
}

const PATH = /^\/v1\/text-to-speech\/([^/]+)\/multi-stream-input$/;

function formatOf(format: string | undefined): { rate: SampleRate; encoding: 'pcm_s16le' | 'mulaw' } | null {
  if (format === 'ulaw_8000') return { rate: 8000, encoding: 'mulaw' };
  const rate = Number(/^pcm_(\d+)$/.exec(format ?? '')?.[1]);
  return rate === 8000 || rate === 16000 || rate === 24000 ? { rate, encoding: 'pcm_s16le' } : null;
}

/** The alignment of one chunk: the characters starting in it, times from the chunk's start. */
function alignment(text: string, msPerChar: number, from: number, to: number, spelling: string) {
  const chars: string[] = [];
  const starts: number[] = [];
  [...text].forEach((c, i) => {
    const at = i * msPerChar;
    if (at >= from && at < to) {
      chars.push(c);
      starts.push(Math.round(at - from));
    }
  });
  return { chars, charStartTimesMs: starts, [spelling]: chars.map(() => Math.round(msPerChar)) };
}

export async function createFakeElevenLabs(options: FakeElevenLabsOptions): Promise<FakeElevenLabs> {
  const connections: ElevenLabsConnection[] = [];
  const voiceRequests: { keyOk: boolean }[] = [];
  let behaviour: ElevenLabsBehaviour = {};
  const voices = options.voices ?? [
    {
      voice_id: 'voice-rachel',
      name: 'Rachel',
      labels: { gender: 'female', accent: 'american' },
      preview_url: 'https://example.test/rachel.mp3',
    },
  ];

  function speak(ws: WebSocket, conn: ElevenLabsConnection) {
    const contexts = new Map<
      string,
      { text: string; speed: number; flushed: boolean; closing: boolean; spoken: boolean; stop: boolean }
    >();
    const format = formatOf(conn.query.output_format);
    const b = behaviour;

    const finalIfDone = (id: string) => {
      const c = contexts.get(id);
      if (c?.closing && c.spoken && !c.stop) {
        contexts.delete(id);
        ws.send(JSON.stringify({ isFinal: true, contextId: id }));
      }
    };

    async function generate(id: string) {
      const c = contexts.get(id)!;
      const text = c.text.trim();
      if (b.stall === 'audio' || !format) return;
      const rate: SampleRate = b.wrongRate ? (format.rate === 8000 ? 16000 : 8000) : format.rate;
      const speech = fakeSpeech(text, rate, format.encoding, c.speed);
      const chunks = chunksOf(speech.bytes, b.chunkBytes ?? 3001);
      const msPerChunk = speech.ms / chunks.length;
      const msPerChar = speech.ms / [...text].length;
      for (const [i, chunk] of chunks.entries()) {
        await yieldTurn();
        if (c.stop || ws.readyState !== ws.OPEN) return;
        if (i === 1 && b.after) {
          if (b.after === 'drop') return ws.terminate();
          if (b.after === 'garbage') return ws.send('{"audio": "AAAA", isFinal');
          if (b.after === 'oversized')
            return ws.send(JSON.stringify({ audio: 'A'.repeat(400_000), contextId: id }));
          return ws.send(
            JSON.stringify({
              message: `Something failed ${b.errorText ?? ''}`,
              error: 'internal',
              code: 1011,
            }),
          );
        }
        const spelling = i % 2 === 0 ? 'charsDurationsMs' : 'charDurationsMs';
        const aligned = alignment(text, msPerChar, i * msPerChunk, (i + 1) * msPerChunk, spelling);
        ws.send(
          JSON.stringify({
            audio: chunk.toString('base64'),
            isFinal: false,
            normalizedAlignment: aligned,
            alignment: aligned,
            contextId: id,
          }),
        );
      }
      c.spoken = true;
      finalIfDone(id);
    }

    ws.on('message', (data) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return ws.close(1008, 'invalid message');
      }
      delete m.xi_api_key;
      conn.messages.push(m);
      if (m.close_socket === true) return ws.close(1000);
      const id = typeof m.context_id === 'string' ? m.context_id : 'default';
      let c = contexts.get(id);
      if (!c) {
        const settings = (m.voice_settings ?? {}) as { speed?: number };
        contexts.set(
          id,
          (c = {
            text: '',
            speed: settings.speed ?? 1,
            flushed: false,
            closing: false,
            spoken: false,
            stop: false,
          }),
        );
      }
      if (typeof m.text === 'string') c.text += m.text;
      if (m.flush === true && !c.flushed && c.text.trim()) {
        c.flushed = true;
        void generate(id);
      }
      if (m.close_context === true) {
        c.closing = true;
        // A context closed before its flush is cancelled: its text is never spoken.
        if (!c.flushed) c.stop = true;
        finalIfDone(id);
      }
    });
    ws.on('close', () => {
      conn.closed = true;
      for (const c of contexts.values()) c.stop = true;
    });
  }

  const host = await listenFakeHost({
    http(req, res, url) {
      const keyOk = req.headers['xi-api-key'] === options.apiKey;
      if (req.method === 'GET' && url.pathname === '/v1/voices') {
        voiceRequests.push({ keyOk });
        if (!keyOk)
          return sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
        return sendJson(res, 200, { voices });
      }
      sendJson(res, 404, { detail: 'Not Found' });
    },
    upgrade(req, url) {
      const match = PATH.exec(url.pathname);
      if (!match) return 404;
      const conn: ElevenLabsConnection = {
        voice: decodeURIComponent(match[1]!),
        query: Object.fromEntries(url.searchParams),
        keyOk: req.headers['xi-api-key'] === options.apiKey,
        messages: [],
        closed: false,
      };
      connections.push(conn);
      if (!conn.keyOk) return 401;
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
