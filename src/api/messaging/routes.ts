import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ParleyError, requireE164, toIso, toVariableMap, unauthorized } from '../../core/index.ts';
import { chooseOrigin } from '../../calls/index.ts';
import type { Chats } from '../../chat/index.ts';
import { MessagingError, type InboundMessage } from '../../providers/index.ts';
import type { Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  OutboundChatBody,
  OutboundChatResult,
  SimInboundBody,
  SimInboundResult,
  SimMessagePage,
  SimMessagesQuery,
} from './schemas.ts';

export interface MessagingRoutesOptions {
  store: Store;
  /** The chat module: outbound conversations and inbound messages. */
  chats: Chats;
  /** PARLEY_PUBLIC_URL: the base of the URL that provider webhooks are signed over. */
  publicUrl: string;
}

const TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

export const messagingRoutes: FastifyPluginAsyncTypebox<MessagingRoutesOptions> = async (app, options) => {
  const { store, chats } = options;

  app.post(
    '/chat/outbound',
    {
      schema: {
        tags: ['Chats'],
        summary: 'Start an outbound SMS or WhatsApp conversation with a chat agent',
        body: OutboundChatBody,
        response: { 200: okEnvelope(OutboundChatResult), ...errorResponses(400, 401, 502) },
      },
    },
    async (request) => {
      const workspace = request.workspace;
      const body = request.body;
      const to = requireE164(body.to_number, ['body', 'to_number']);
      const { agent, number } = await chooseOrigin(store, workspace, 'text', {
        agentId: body.agent_id,
        from: body.from_number,
      });
      const chat = await chats.startOutbound(workspace, {
        agent,
        number,
        to,
        channel: body.channel,
        metadata: toVariableMap(body.custom_variables),
        ...(body.initial_message !== undefined ? { initialMessage: body.initial_message } : {}),
        ...(body.template
          ? {
              template: {
                contentSid: body.template.content_sid,
                ...(body.template.variables ? { variables: body.template.variables } : {}),
              },
            }
          : {}),
      });
      return ok({ conversation_id: chat.id });
    },
  );

  app.post(
    '/messaging/sim/inbound',
    {
      schema: {
        tags: ['Messaging'],
        summary: "Play the other side of the sim carrier: a message from `from` to the workspace's `to`",
        description:
          "Continues the ongoing sms/whatsapp chat of the pair (from, to) in the key's workspace and sends the agent's answer back through the sim. With no ongoing chat the message is ignored: chat_id and agent_message are null.",
        body: SimInboundBody,
        response: { 200: okEnvelope(SimInboundResult), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const body = request.body;
      const message: InboundMessage = {
        channel: body.channel,
        from: requireE164(body.from, ['body', 'from']),
        to: requireE164(body.to, ['body', 'to']),
        body: body.body,
        providerMessageId: `SIM${randomUUID().replaceAll('-', '')}`,
      };
      const outcome = await chats.receive(
        message,
        chats.messaging.sim,
        { workspaceId: request.workspace.id },
        request.log,
      );
      return ok({ chat_id: outcome?.chatId ?? null, agent_message: outcome?.turn.agent_message ?? null });
    },
  );

  app.get(
    '/messaging/sim/messages',
    {
      schema: {
        tags: ['Messaging'],
        summary: 'What the workspace sent through the sim carrier, newest first',
        querystring: SimMessagesQuery,
        response: { 200: okEnvelope(SimMessagePage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const all = chats.simOutbox(request.workspace.id);
      return ok({
        pagination: { total_records: all.length, limit, offset },
        messages: all.slice(offset, offset + limit).map((m) => ({
          message_id: m.id,
          channel: m.channel,
          from: m.from,
          to: m.to,
          body: m.template ? null : (m.body ?? null),
          template: m.template
            ? { content_sid: m.template.contentSid, variables: m.template.variables ?? {} }
            : null,
          sent_at: toIso(m.sentAt),
        })),
      });
    },
  );

  // Twilio's messaging webhook: form-encoded, authenticated by X-Twilio-Signature (no API key).
  await app.register(async (webhook) => {
    webhook.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, raw, done) => {
        done(null, Object.fromEntries(new URLSearchParams(raw as string)));
      },
    );
    webhook.post(
      '/messaging/twilio/inbound',
      {
        config: { signedWebhook: true },
        schema: {
          tags: ['Messaging'],
          summary: "Twilio's incoming-message webhook (signed with X-Twilio-Signature; no API key)",
          response: errorResponses(400, 401),
        },
      },
      async (request, reply) => {
        const twilio = chats.messaging.twilio;
        if (!twilio) {
          throw new ParleyError('Twilio messaging is not configured on this server', {
            code: 'not_configured',
            status: 400,
            category: 'validation',
          });
        }
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(request.headers)) {
          headers[name] = Array.isArray(value) ? value[0] : value;
        }
        const form = (request.body ?? {}) as Record<string, string>;
        let message: InboundMessage;
        try {
          message = twilio.inbound.parse({ url: `${options.publicUrl}${request.url}`, headers, form });
        } catch (err) {
          if (err instanceof MessagingError && err.status === 401) throw unauthorized(err.message);
          throw err;
        }
        try {
          await chats.receive(message, twilio.messaging, {}, request.log);
        } catch (err) {
          // Twilio retries a failed webhook; the message was taken, so answer 200 and log.
          request.log.error({ err }, 'an inbound Twilio message could not be handled');
        }
        return reply.type('text/xml').send(TWIML_EMPTY);
      },
    );
  });
};
