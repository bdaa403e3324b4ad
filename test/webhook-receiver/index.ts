import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A real webhook receiver for tests: a local HTTP server that verifies Standard Webhooks
// signatures with the `standardwebhooks` library (as an integrator's server would), records
// every request, and answers as told:
//
//   ok (200) | error (500) | gone (410) | too_large (413) | hang (never answers) |
//   close (drops the connection) | huge (200 with a multi-megabyte body)
//
// A request takes the next mode queued with `respondWith`, else the mode of its path
// (`<url>/hang` always hangs, `<url>/ok` always answers 200...), else the default mode. A request
// whose signature does not verify is answered 401 (and recorded with `verified: false`).

export const RECEIVER_MODES = ['ok', 'error', 'gone', 'too_large', 'hang', 'close', 'huge'] as const;
export type ReceiverMode = (typeof RECEIVER_MODES)[number];

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The signature verified with the receiver's secret at the time. */
  verified: boolean;
  /** Why it did not verify. */
  verifyError: string | null;
  mode: ReceiverMode;
}

export interface WebhookReceiverOptions {
  secret: string;
  /** The port to listen on (default: a free one); lets a test bring a receiver back on it. */
  port?: number;
  defaultMode?: ReceiverMode;
  /**
   * The time signatures are verified at (ms). The library checks `webhook-timestamp` against
   * Date.now() with a 5-minute tolerance; tests that move a manual clock pass its `now`.
   */
  now?: () => number;
  /** Bytes of the `huge` answer (default 4 MiB). */
  hugeBytes?: number;
}

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:PORT (append /ok, /hang... for a fixed mode). */
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedWebhook[];
  /** Requests being held open by `hang`. */
  readonly hanging: number;
  /** Queues modes for the next requests (one each). */
  respondWith(...modes: ReceiverMode[]): void;
  setDefaultMode(mode: ReceiverMode): void;
  /** Swaps the secret signatures are verified with. */
  setSecret(secret: string): void;
  /** True when `received`'s signature header holds a valid signature for `secret`. */
  verifiesWith(received: ReceivedWebhook, secret: string): boolean;
  /** Resolves once `count` requests have been received (bodies read). */
  waitFor(count: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

function verify(
  secret: string,
  body: string,
  headers: Record<string, string>,
  now?: () => number,
): string | null {
  const realNow = Date.now;
  if (now) Date.now = now; // verify() is synchronous: only this call sees the test clock
  try {
    new Webhook(secret).verify(body, headers);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    Date.now = realNow;
  }
}

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  let secret = options.secret;
  let defaultMode: ReceiverMode = options.defaultMode ?? 'ok';
  const queue: ReceiverMode[] = [];
  const received: ReceivedWebhook[] = [];
  const waiters: { count: number; resolve: (r: ReceivedWebhook[]) => void }[] = [];
  const sockets = new Set<Socket>();
  const held = new Set<http.ServerResponse>();
  const hugeBytes = options.hugeBytes ?? 4 * 1024 * 1024;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      }
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const fromPath = path.slice(1) as ReceiverMode;
      const mode = queue.shift() ?? (RECEIVER_MODES.includes(fromPath) ? fromPath : defaultMode);
      const verifyError = verify(secret, body, headers, options.now);
      const record: ReceivedWebhook = {
        path,
        headers,
        body,
        verified: verifyError === null,
        verifyError,
        mode,
      };
      received.push(record);
      for (const w of [...waiters]) {
        if (received.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(received.slice());
        }
      }
      if (mode === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      if (mode === 'close') {
        req.socket.destroy();
        return;
      }
      if (verifyError !== null) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: verifyError }));
        return;
      }
      switch (mode) {
        case 'ok':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
          return;
        case 'error':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
          return;
        case 'gone':
          res.writeHead(410, { 'content-type': 'text/plain' }).end('gone');
          return;
        case 'too_large':
          res.writeHead(413, { 'content-type': 'text/plain' }).end('payload too large');
          return;
        case 'huge': {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const chunk = Buffer.alloc(64 * 1024, 'x');
          let sent = 0;
          const pump = () => {
            while (sent < hugeBytes) {
              sent += chunk.length;
              if (!res.write(chunk)) {
                res.once('drain', pump);
                return;
              }
            }
            res.end();
          };
          res.on('close', () => {
            sent = hugeBytes;
          });
          pump();
          return;
        }
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    get hanging() {
      return held.size;
    },
    respondWith: (...modes) => void queue.push(...modes),
    setDefaultMode: (mode) => {
      defaultMode = mode;
    },
    setSecret: (s) => {
      secret = s;
    },
    verifiesWith: (r, s) => verify(s, r.body, r.headers, options.now) === null,
    waitFor(count) {
      if (received.length >= count) return Promise.resolve(received.slice());
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      for (const res of held) res.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
