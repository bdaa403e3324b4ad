import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { WebSocket } from 'ws';
import type { WsMediaCarrier, WsMediaSocket } from '../../telephony/index.ts';

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
  let answered = true;
  socket.on('pong', () => (answered = true));
  const keepAlive = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, keepAliveMs);
  keepAlive.unref();
  socket.once('close', () => clearInterval(keepAlive));
  return {
    send(data) {
      if (socket.readyState === socket.OPEN) socket.send(data);
    },
    close(code, reason) {
      socket.close(code, reason);
    },
    onMessage(handler) {
      socket.on('message', (data, isBinary) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
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
