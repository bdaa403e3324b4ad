import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { Resampler, dataSpeechFrames, mulawEncode, type SampleRate } from '../src/media/index.ts';

// What the fake hosted TTS servers (test/elevenlabs-server, test/cartesia-server) share: speech
// made of data speech (src/media/data-speech.ts) so a round trip reads back exactly, at the rate
// and encoding asked, lasting longer at lower speeds; and an HTTP + WebSocket server on 127.0.0.1.

const DATA_RATE = 16000;
const FRAME = 320; // samples of a 20 ms frame at DATA_RATE

export interface FakeSpeech {
  bytes: Buffer;
  /** How long it lasts, ms. */
  ms: number;
}

/**
 * Data speech of `text`, then silence: at speed 1 the whole lasts twice the data, at speed s
 * 2/s times (never less than the data and 40 ms), so speed changes the duration as a vendor's does.
 */
export function fakeSpeech(
  text: string,
  rate: SampleRate,
  encoding: 'pcm_s16le' | 'mulaw',
  speed = 1,
): FakeSpeech {
  const frames = dataSpeechFrames(text);
  const padFrames = 2 + Math.max(0, Math.round((frames.length * 2) / speed) - frames.length);
  const pcm = new Int16Array((frames.length + padFrames) * FRAME);
  frames.forEach((f, i) => pcm.set(f.samples, i * FRAME));
  let out = pcm;
  if (rate !== DATA_RATE) {
    const resampler = new Resampler(DATA_RATE, rate);
    out = new Int16Array(resampler.maxOutput(pcm.length));
    out = out.subarray(0, resampler.process(pcm, out));
  }
  const ms = (pcm.length * 1000) / DATA_RATE;
  if (encoding === 'mulaw') return { bytes: Buffer.from(mulawEncode(out)), ms };
  return { bytes: Buffer.from(out.buffer, out.byteOffset, out.byteLength), ms };
}

/** Cuts audio into chunks of `size` bytes (odd sizes split samples, as vendors may). */
export function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export interface FakeHost {
  /** `ws://127.0.0.1:PORT` */
  wsUrl: string;
  /** `http://127.0.0.1:PORT` */
  httpUrl: string;
  close(): Promise<void>;
}

export interface FakeHostHandlers {
  http(req: IncomingMessage, res: ServerResponse, url: URL): void;
  /** Answers an upgrade: a status to refuse it, 'hold' to never answer, or a handler for the socket. */
  upgrade(req: IncomingMessage, url: URL): number | 'hold' | ((ws: WebSocket) => void);
}

export async function listenFakeHost(handlers: FakeHostHandlers): Promise<FakeHost> {
  const sockets = new Set<Socket>();
  const wss = new WebSocketServer({ noServer: true });
  const server: Server = createServer((req, res) =>
    handlers.http(req, res, new URL(req.url ?? '/', 'http://127.0.0.1')),
  );
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    const answer = handlers.upgrade(req, new URL(req.url ?? '/', 'http://127.0.0.1'));
    if (answer === 'hold') return;
    if (typeof answer === 'number') {
      socket.end(`HTTP/1.1 ${answer} Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
