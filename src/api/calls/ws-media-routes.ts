import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { WEB_CALL_NUMBER, chooseOrigin, type WebCalls } from '../../calls/index.ts';
import { invalidInput, isUuid, requireE164, unavailable } from '../../core/index.ts';
import type { Store } from '../../store/index.ts';
import { WS_CODECS, WS_FRAMINGS } from '../../telephony/index.ts';
import { errorResponses, StringEnum } from '../schemas/common.ts';
import { WS_MEDIA_PATH } from './ws-media-socket.ts';

// The WebSocket media test call (spec "Calls", WIRE.md section 10, docs/ws-media.md): the client
// is the far end of a call. Bodies are bare (no envelope). The socket itself is served by
// ws-media-socket.ts on every node that runs these calls.

const TAG = ['Calls'];

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

const e164 = (value: string | undefined, field: string): string | undefined =>
  value === undefined ? undefined : requireE164(value, ['body', field]);

export const wsMediaRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Absent: WebSocket media is disabled on this server (503). */
  webCalls: WebCalls | null;
}> = async (app, { store, webCalls }) => {
  const enabled = (): WebCalls => {
    if (!webCalls) throw unavailable('WebSocket media is not enabled on this server (PARLEY_WS_MEDIA=off)');
    return webCalls;
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
      const base = await enabled().baseUrl();
      if (base === null) throw unavailable('no node takes WebSocket media calls now');
      return { wsMediaBaseUrl: socketUrl(base, WS_MEDIA_PATH) };
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
      const web = enabled();
      const body = request.body;
      const workspace = request.workspace;
      if (!isUuid(body.modelId)) throw invalidInput('body.modelId must be a UUID', ['body', 'modelId']);
      const { agent, from, version } = await chooseOrigin(store, workspace, 'web-call', {
        agentId: body.modelId,
        from: body.fromPhoneNumber,
        version: body.agentVersion,
      });
      const to = e164(body.toPhoneNumber, 'toPhoneNumber') ?? WEB_CALL_NUMBER;
      const serverName = body.wsMediaServerName ?? '';
      const started = await web.start(workspace, {
        placement: {
          agent,
          ...(version !== undefined ? { version } : {}),
          from,
          to,
          leadName: body.leadName ?? '',
          variables: {},
        },
        codec: body.wsMediaCodec ?? 'opus',
        framing: body.wsMediaFraming ?? 'rtp',
        serverName,
      });
      if (started.kind === 'no-node') return reply.code(502).send({ error: started.error });
      return {
        callId: started.call.id,
        wsMediaUrl: `${socketUrl(started.publicUrl, WS_MEDIA_PATH)}?sid=${encodeURIComponent(started.sid)}`,
        sid: serverName === '' ? '' : started.sid,
      };
    },
  );
};
