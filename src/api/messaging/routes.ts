import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ParleyError,
  invalidInput,
  normalizeE164,
  notFound,
  systemClock,
  toIso,
  toVariableMap,
  unauthorized,
  type Clock,
} from '../../core/index.ts';
import { MessagingError, type InboundMessage, type OutboundMessage } from '../../providers/index.ts';
import type { Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { stateOf, statusOf, type ChatTurns } from '../chats/turns.ts';
import { WHATSAPP_WINDOW_MS, type ChatChannels } from './channels.ts';
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
  turns: ChatTurns;
  channels: ChatChannels;
  /** PARLEY_PUBLIC_URL: the base of the URL that provider webhooks are signed over. */
  publicUrl: string;
  clock?: Clock;
}

function e164(value: string, loc: string[]): string {
  const number = normalizeE164(value);
  if (!number) {
    throw invalidInput(`${loc.join('.')}: not a phone number; write it in E.164 with its country code`, loc);
  }
  return number;
}

/** A provider's refusal: 400 with its message when trying again cannot help, else 502. */
function sendFailure(err: MessagingError): ParleyError {
  return new ParleyError(`the message was not sent: ${err.message}`, {
    code: err.code,
    status: err.retryable ? 502 : 400,
    category: err.retryable ? 'critical' : 'validation',
    retryable: err.retryable,
    cause: err,
  });
}

const TWIML_EMPTY = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

export const messagingRoutes: FastifyPluginAsyncTypebox<MessagingRoutesOptions> = async (app, options) => {
  const { store, turns, channels } = options;
  const clock = options.clock ?? systemClock;

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
      const agent = await store.agents.get(workspace.id, body.agent_id);
      if (!agent) throw notFound(`agent_id: agent ${body.agent_id} not found`, 400);
      const to = e164(body.to_number, ['body', 'to_number']);
      const from = e164(body.from_number, ['body', 'from_number']);
      const attached = (await store.phoneNumbers.attachedTo(workspace.id, [agent.id])).get(agent.id) ?? [];
      const number = attached.find((n) => n.number === from);
      if (!number) {
        throw invalidInput(`body.from_number: not a number of this workspace attached to agent ${agent.id}`, [
          'body',
          'from_number',
        ]);
      }
      const adapter = channels.adapterFor(number.provider, ['body', 'from_number']);

      // The opening line is the agent's first turn: the given message, else the template's
      // reference, else the agent's greeting (placeholders filled from custom_variables).
      const metadata: Record<string, unknown> = toVariableMap(body.custom_variables);
      const opening =
        body.initial_message ?? (body.template ? `[template ${body.template.content_sid}]` : undefined);
      // The chat's id is known before the first send, so the action records carry it.
      const chatId = randomUUID();
      const { conversation, versionId } = await turns.open({
        chatId,
        agent,
        workspace,
        metadata,
        party: { ourNumber: from, leadNumber: to },
        overrides: {
          greeting_message_mode: 'agent_static',
          ...(opening !== undefined ? { greeting_message: opening } : {}),
        },
      });
      const session = conversation.session;
      const text = (await session.start()).reply;
      if (!text) {
        throw invalidInput(
          'body.initial_message: give initial_message or template; the agent has no greeting_message to send',
          ['body', 'initial_message'],
        );
      }

      if (body.channel === 'whatsapp' && !body.template) {
        const last = await store.chats.lastInboundAt(workspace.id, {
          channel: 'whatsapp',
          ownNumber: from,
          remoteNumber: to,
        });
        if (last === null || clock.now() - last >= WHATSAPP_WINDOW_MS) {
          throw invalidInput(
            'body.template: outside the 24-hour WhatsApp customer-service window (no message from to_number in the last 24 hours), only a template can be sent',
            ['body', 'template'],
          );
        }
      }

      const message: OutboundMessage = body.template
        ? {
            channel: body.channel,
            from,
            to,
            template: {
              contentSid: body.template.content_sid,
              ...(body.template.variables ? { variables: body.template.variables } : {}),
            },
          }
        : { channel: body.channel, from, to, body: text };
      try {
        await channels.send(workspace.id, adapter, message);
      } catch (err) {
        if (err instanceof MessagingError) throw sendFailure(err);
        throw err;
      }
      // Created only once the message is out: a refused send leaves no chat behind.
      const chat = await store.chats.create(workspace.id, {
        id: chatId,
        agentId: agent.id,
        agentVersionId: versionId,
        channel: body.channel,
        metadata,
        state: stateOf(conversation),
        status: statusOf(session),
        ownNumber: from,
        remoteNumber: to,
      });
      if (!chat) throw new Error('a new chat id collided');
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
        from: e164(body.from, ['body', 'from']),
        to: e164(body.to, ['body', 'to']),
        body: body.body,
        providerMessageId: `SIM${randomUUID().replaceAll('-', '')}`,
      };
      const outcome = await channels.receive(
        message,
        channels.messaging.sim,
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
      const all = channels.simOutbox(request.workspace.id);
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
        const twilio = channels.messaging.twilio;
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
          await channels.receive(message, twilio.messaging, {}, request.log);
        } catch (err) {
          // Twilio retries a failed webhook; the message was taken, so answer 200 and log.
          request.log.error({ err }, 'an inbound Twilio message could not be handled');
        }
        return reply.type('text/xml').send(TWIML_EMPTY);
      },
    );
  });
};
