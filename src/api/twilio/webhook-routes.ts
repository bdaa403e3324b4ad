import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { ParleyError, invalidInput } from '../../core/index.ts';
import {
  TWILIO_STATUS_PATH,
  TWILIO_STREAM_PATH,
  TWILIO_VOICE_PATH,
  type TwilioAnswer,
  type TwilioCarrier,
  type TwilioRequest,
  type TwilioSocket,
} from '../../telephony/index.ts';
import { errorResponses } from '../schemas/common.ts';
import { keepSocketAlive } from '../socket-keepalive.ts';

// What Twilio calls on a node that runs calls (docs/twilio.md): the number's Voice URL, the status
// callbacks, and the Media Stream's WebSocket. No API key: the carrier checks X-Twilio-Signature
// (and the stream's one-time token) and answers 403 when it fails. Served outside /v2's
// authenticated scope, like the WS media socket.

const TAG = ['Twilio'];
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/** A stream that has not answered the last ping by the next is gone without a close: cut off. */
const KEEPALIVE_MS = 15_000;

/**
 * The server's socket as the carrier sees it: text messages (Twilio sends no binary ones). A
 * stream dropped without a close (a network gone) would otherwise keep its call up: it is pinged,
 * and cut off (which ends the call) when it misses a pong.
 */
function adapt(socket: WebSocket): TwilioSocket {
  keepSocketAlive(socket, KEEPALIVE_MS);
  return {
    send(data) {
      if (socket.readyState === socket.OPEN) socket.send(data);
    },
    close(code, reason) {
      socket.close(code, reason);
    },
    onMessage(handler) {
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        handler(bytes.toString('utf8'));
      });
    },
    onClose(handler) {
      socket.once('close', handler);
    },
  };
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export const twilioWebhookRoutes: FastifyPluginAsyncTypebox<{ carrier: TwilioCarrier }> = async (
  app,
  { carrier },
) => {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, raw, done) => {
      done(null, Object.fromEntries(new URLSearchParams(raw as string)));
    },
  );

  const answer =
    (handle: (request: TwilioRequest) => Promise<TwilioAnswer>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const result = await handle({
        url: request.url,
        params: (request.body ?? {}) as Record<string, string>,
        signature: headerOf(request.headers['x-twilio-signature']),
      });
      if (result.status === 403)
        throw new ParleyError(result.error ?? 'bad signature', {
          code: 'forbidden',
          status: 403,
          category: 'auth',
        });
      if (result.status === 400) throw invalidInput(result.error ?? 'bad request', ['body']);
      return reply.type('text/xml').send(result.twiml ?? EMPTY_TWIML);
    };

  // Twilio's, not a client's: kept out of the OpenAPI document (docs/twilio.md describes them).
  const schema = (summary: string) => ({
    hide: true,
    tags: TAG,
    summary,
    consumes: ['application/x-www-form-urlencoded'],
    response: errorResponses(400, 403),
  });

  app.post(
    TWILIO_VOICE_PATH,
    { schema: schema("A Twilio number's Voice URL (signed; no API key)") },
    answer(carrier.voice),
  );
  app.post(
    TWILIO_STATUS_PATH,
    { schema: schema('Twilio call status callbacks (signed; no API key)') },
    answer(carrier.status),
  );
  app.get(TWILIO_STREAM_PATH, { websocket: true, schema: { hide: true } }, (socket) =>
    carrier.connect(adapt(socket)),
  );
};
