import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createDataSpeechReader, dataSpeechFrames, type SampleRate } from '../../src/media/index.ts';

// A fake OpenAI-compatible speech server under `{base}/v1`: `POST /audio/speech` streams raw
// 24 kHz 16-bit PCM (`response_format: pcm`) of data speech of its `input`, in chunks that split
// samples and frames; `POST /audio/transcriptions` takes OpenAI's multipart form and answers
// `{text}` read from the WAV's data speech; `GET /models` lists its models. It checks the Bearer
// key when it has one, records what it got (never the key), and fails on request.

export interface OpenAISpeechBehaviour {
  /** Answer every request with this HTTP status. */
  status?: number;
  /** Never answer. */
  stall?: boolean;
  /** Speech: drop the connection after the first chunk; send JSON with 200; an odd byte count. */
  speech?: 'drop' | 'json' | 'odd';
  /** Transcriptions answered in reverse order of arrival (the later first). */
  reverse?: boolean;
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
  const rate = wav.readUInt32LE(24) as SampleRate;
  const data = wav.subarray(44);
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
  options: { apiKey?: string; prefix?: string; models?: string[] } = {},
): Promise<FakeOpenAISpeech> {
  const prefix = `${options.prefix ?? ''}/v1`;
  const requests: OpenAISpeechRequest[] = [];
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const OPENAI_FAKE_RATE = RATE;
