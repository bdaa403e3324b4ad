import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { WebSocket } from 'ws';
import type { WsMediaCarrier, WsMediaSocket } from '../../telephony/index.ts';
import { keepSocketAlive } from '../socket-keepalive.ts';

/** The socket's descriptor, for the pacer worker (WsMediaSocket.direct). */
type DirectSocket = NonNullable<ReturnType<NonNullable<WsMediaSocket['direct']>>>;

// The WebSocket media socket (WIRE.md section 10, docs/ws-media.md), served on every node that
// runs WS media calls, API or worker. It is authenticated by its single-use session id, not by an
// API key, so it lives outside the authenticated routes.

/** The WebSocket route, under /v2. */
export const WS_MEDIA_PATH = '/calls/ws-media';
/** Larger binary messages close the socket (1009); a 20 ms frame is at most 1,292 bytes. */
export const WS_MEDIA_MAX_MESSAGE_BYTES = 64 * 1024;
export const WS_MEDIA_KEEPALIVE_MS = 15_000;

/**
 * The server's socket as the carrier sees it. A ping goes out every `keepAliveMs`; a client that
 * has not answered the last one by the next is gone without a close (a dropped network) and is
 * cut off, which ends its call.
 */
function adapt(socket: WebSocket, keepAliveMs: number): WsMediaSocket {
  keepSocketAlive(socket, keepAliveMs);
  return {
    send(data) {
      if (socket.readyState === socket.OPEN) socket.send(data);
    },
    close(code, reason) {
      socket.close(code, reason);
    },
    onMessage(handler) {
      socket.on('message', (data, isBinary) => {
        // `ws` hands a Buffer (binaryType nodebuffer): taken as it is, not copied, per frame.
        const bytes = Buffer.isBuffer(data)
          ? data
          : Array.isArray(data)
            ? Buffer.concat(data)
            : Buffer.from(data);
        handler(
          isBinary
            ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
            : bytes.toString('utf8'),
        );
      });
    },
    onClose(handler) {
      socket.once('close', handler);
    },
    direct: () => directSocket(socket),
  };
}

/** How soon a write waiting for the pacer thread's rest of a frame tries again. */
const WRITE_RETRY_MS = 2;

/** The net.Socket internals the direct path needs (Node's, stable since long; checked at run time). */
interface TcpInternals {
  encrypted?: boolean;
  _handle?: { fd?: unknown } | null;
  _destroy: (err: Error | null, cb: (err: Error | null) => void) => void;
  _write?: (...args: unknown[]) => unknown;
  _writev?: (...args: unknown[]) => unknown;
}

/**
 * The WebSocket's TCP socket for the pacer worker to write audio frames to (docs/ws-media.md):
 * plain TCP with a descriptor only (not TLS). `guard` hooks the socket instance: `_destroy`, which
 * every close passes through (destroy, the peer's end, a reset, terminate) before Node closes the
 * descriptor; the WebSocket's `close` (a close frame is the last frame); and `_write`/`_writev`,
 * where its own frames go to libuv.
 */
function directSocket(socket: WebSocket): DirectSocket | null {
  const tcp = (socket as unknown as { _socket?: TcpInternals })._socket;
  if (!tcp || tcp.encrypted || typeof tcp._destroy !== 'function') return null;
  const fd = tcp._handle?.fd;
  if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0) return null;
  return {
    fd,
    guard(hooks) {
      const destroy = tcp._destroy;
      tcp._destroy = function (this: unknown, err, cb) {
        hooks.closing();
        destroy.call(this, err, cb);
      };
      const close = socket.close;
      socket.close = function (this: WebSocket, ...args: Parameters<WebSocket['close']>) {
        hooks.closing();
        close.apply(this, args);
      };
      for (const name of ['_write', '_writev'] as const) {
        const write = tcp[name];
        if (typeof write !== 'function') continue;
        tcp[name] = function (this: unknown, ...args: unknown[]) {
          const done = args[args.length - 1] as (err?: Error | null) => void;
          const attempt = () => {
            const hold = hooks.writing();
            // The pacer thread owes the rest of a frame (a full buffer): the stream waits for it.
            if (hold === 'wait') return void setTimeout(attempt, WRITE_RETRY_MS);
            args[args.length - 1] = (err?: Error | null) => {
              if (hold === 'held') hooks.written();
              done(err);
            };
            write.apply(this, args);
          };
          attempt();
        };
      }
    },
    terminate() {
      socket.terminate();
    },
  };
}

export const wsMediaSocketRoute: FastifyPluginAsyncTypebox<{
  carrier: WsMediaCarrier;
  /** How often a silent client is asked whether it is still there (default 15 s). */
  keepAliveMs?: number;
}> = async (app, { carrier, keepAliveMs = WS_MEDIA_KEEPALIVE_MS }) => {
  app.get(
    WS_MEDIA_PATH,
    {
      websocket: true,
      schema: {
        hide: true,
        querystring: Type.Object({ sid: Type.Optional(Type.String({ maxLength: 100 })) }),
      },
    },
    (socket, request) => carrier.connect(adapt(socket, keepAliveMs), request.query.sid),
  );
};
