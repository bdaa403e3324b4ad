import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { WebSocket } from 'ws';
import type { CallService } from '../../calls/index.ts';
import { invalidInput, isUuid, newId, normalizeE164, notFound, unavailable } from '../../core/index.ts';
import type { Store } from '../../store/index.ts';
import { WS_CODECS, WS_FRAMINGS, type WsMediaCarrier, type WsMediaSocket } from '../../telephony/index.ts';
import { chooseVersion } from '../assistants/version-choice.ts';
import { errorResponses, StringEnum } from '../schemas/common.ts';

// The WebSocket media test call (spec "Calls", WIRE.md section 10, docs/ws-media.md): the client
// is the far end of a call. Bodies are bare (no envelope). The socket route is authenticated by
// its single-use session id, not by an API key.

const TAG = ['Calls'];
/** The number a web call is "from" or "to" when the request names none and the agent has none. */
export const WEB_CALL_NUMBER = '+15555550100';
/** The WebSocket route, under /v2. */
export const WS_MEDIA_PATH = '/calls/ws-media';
/** Larger binary messages close the socket (1009); a 20 ms frame is at most 1,292 bytes. */
export const WS_MEDIA_MAX_MESSAGE_BYTES = 64 * 1024;
export const WS_MEDIA_KEEPALIVE_MS = 15_000;

const WsMediaBody = Type.Object({
  modelId: Type.String({ description: 'The agent (UUID).' }),
  fromPhoneNumber: Type.Optional(
    Type.String({ description: `Caller id; default the agent's attached number, else ${WEB_CALL_NUMBER}.` }),
  ),
  toPhoneNumber: Type.Optional(Type.String({ description: `The callee; default ${WEB_CALL_NUMBER}.` })),
  leadName: Type.Optional(Type.String({ maxLength: 200 })),
  agentVersion: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        "`draft`, a version UUID of the agent (see `/assistants/{model_id}/versions`), or omitted for the live version (the agent's latest published, or the one rolled back to; the draft while never published).",
    }),
  ),
  wsMediaCodec: Type.Optional(StringEnum(WS_CODECS, { default: 'opus' })),
  wsMediaFraming: Type.Optional(StringEnum(WS_FRAMINGS, { default: 'rtp' })),
  wsMediaServerName: Type.Optional(
    Type.String({ description: 'A node name from `server_info`: connect-then-bind on that node.' }),
  ),
});

const WsMediaStarted = Type.Object({
  callId: Type.String(),
  wsMediaUrl: Type.String({ description: 'Short-lived: the session id is attached.' }),
  sid: Type.String({ description: 'The session id to bind (connect-then-bind); empty for the legacy flow.' }),
});

const WsMediaFailed = Type.Object({ callId: Type.Optional(Type.String()), error: Type.String() });

/** `http(s)://host/...` as `ws(s)://host/...`. */
const socketUrl = (publicUrl: string, path: string) =>
  `${publicUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/v2${path}`;

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

function e164(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const number = normalizeE164(value);
  if (!number)
    throw invalidInput(`body.${field} is not a valid phone number with a country code`, ['body', field]);
  return number;
}

export const wsMediaRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  calls: CallService;
  /** Absent: WebSocket media is disabled on this server (503). */
  carrier: WsMediaCarrier | null;
  publicUrl: string;
  /** How often a silent client is asked whether it is still there (default 15 s). */
  keepAliveMs?: number;
}> = async (app, { store, calls, carrier, publicUrl, keepAliveMs = WS_MEDIA_KEEPALIVE_MS }) => {
  const enabled = (): WsMediaCarrier => {
    if (!carrier) throw unavailable('WebSocket media is not enabled on this server (PARLEY_WS_MEDIA=off)');
    return carrier;
  };

  app.get(
    '/calls/outbound-test-ws-media/base-url',
    {
      schema: {
        tags: TAG,
        summary: 'The WebSocket base URL for connect-then-bind',
        response: { 200: Type.Object({ wsMediaBaseUrl: Type.String() }), ...errorResponses(401, 503) },
      },
    },
    async () => {
      enabled();
      return { wsMediaBaseUrl: socketUrl(publicUrl, WS_MEDIA_PATH) };
    },
  );

  app.post(
    '/calls/outbound-test-ws-media',
    {
      schema: {
        tags: TAG,
        summary: 'Start a test call whose far end is a WebSocket client',
        body: WsMediaBody,
        response: { 200: WsMediaStarted, 502: WsMediaFailed, ...errorResponses(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const ws = enabled();
      const body = request.body;
      const workspace = request.workspace;
      if (!isUuid(body.modelId)) throw invalidInput('body.modelId must be a UUID', ['body', 'modelId']);
      const agent = await store.agents.get(workspace.id, body.modelId);
      if (!agent) throw notFound(`body.modelId: agent ${body.modelId} not found`, 400);
      const version = await chooseVersion(store, agent, body.agentVersion, ['body', 'agentVersion']);
      const attached = (await store.phoneNumbers.attachedTo(workspace.id, [agent.id])).get(agent.id) ?? [];
      const from = e164(body.fromPhoneNumber, 'fromPhoneNumber') ?? attached[0]?.number ?? WEB_CALL_NUMBER;
      const to = e164(body.toPhoneNumber, 'toPhoneNumber') ?? WEB_CALL_NUMBER;
      const serverName = body.wsMediaServerName ?? '';
      if (serverName !== '' && serverName !== ws.serverName) {
        return reply.code(502).send({
          error: `wsMediaServerName: no node named "${serverName}" takes this call (this node is "${ws.serverName}")`,
        });
      }
      const callId = newId();
      const session = ws.open({
        callId,
        codec: body.wsMediaCodec ?? 'opus',
        framing: body.wsMediaFraming ?? 'rtp',
      });
      await calls.place(workspace, {
        id: callId,
        type: 'web',
        agent,
        ...(version !== undefined ? { version } : {}),
        from,
        provider: 'ws',
        to,
        leadName: body.leadName ?? '',
        variables: {},
      });
      return {
        callId,
        wsMediaUrl: `${socketUrl(publicUrl, WS_MEDIA_PATH)}?sid=${encodeURIComponent(session.sid)}`,
        sid: serverName === '' ? '' : session.sid,
      };
    },
  );

  app.get(
    WS_MEDIA_PATH,
    {
      websocket: true,
      config: { mediaSocket: true },
      schema: {
        hide: true,
        querystring: Type.Object({ sid: Type.Optional(Type.String({ maxLength: 100 })) }),
      },
    },
    (socket, request) => {
      const ws = carrier;
      if (!ws) {
        socket.close(1013, 'WebSocket media is not enabled on this server');
        return;
      }
      ws.connect(adapt(socket, keepAliveMs), request.query.sid);
    },
  );
};
