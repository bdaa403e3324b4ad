import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import {
  TWILIO_STATUS_PATH,
  TWILIO_STREAM_PATH,
  TWILIO_VOICE_PATH,
  type TwilioCarrier,
} from '../../src/telephony/index.ts';

// Parley's three Twilio endpoints served straight from a carrier on 127.0.0.1, for tests of the
// carrier below the API (the API serves the same in src/api/twilio/). `publicUrl` is what the
// carrier must be given; `use` sets the carrier once it is built.

export async function startTwilioEndpoints() {
  let carrier: TwilioCarrier | null = null;
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const body = await read(req);
      const handler =
        path === TWILIO_VOICE_PATH
          ? carrier?.voice
          : path === TWILIO_STATUS_PATH
            ? carrier?.status
            : undefined;
      if (!handler || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const signature = req.headers['x-twilio-signature'];
      const answer = await handler({
        url: req.url ?? '/',
        params: Object.fromEntries(new URLSearchParams(body)),
        signature: typeof signature === 'string' ? signature : undefined,
      });
      res.writeHead(answer.status, { 'content-type': answer.twiml ? 'text/xml' : 'text/plain' });
      res.end(answer.twiml ?? answer.error ?? '');
    })();
  });
  const wss = new WebSocketServer({ server, path: TWILIO_STREAM_PATH });
  wss.on('connection', (ws) => {
    if (!carrier) return ws.close();
    carrier.connect({
      send: (data) => {
        if (ws.readyState === ws.OPEN) ws.send(data);
      },
      close: (code, reason) => ws.close(code, reason),
      onMessage: (handler) => ws.on('message', (data) => handler(String(data))),
      onClose: (handler) => ws.once('close', handler),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    publicUrl: `http://127.0.0.1:${port}`,
    use(next: TwilioCarrier) {
      carrier = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
