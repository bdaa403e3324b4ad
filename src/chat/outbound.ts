import { randomUUID } from 'node:crypto';
import { ParleyError, invalidInput, systemClock, type Clock } from '../core/index.ts';
import { MessagingError, type OutboundMessage } from '../providers/index.ts';
import type { MessagingHub } from '../runtime/index.ts';
import type { Agent, Chat, PhoneNumber, Store, Workspace } from '../store/index.ts';
import { WHATSAPP_WINDOW_MS } from './channels.ts';
import { stateOf, statusOf, type ChatTurns } from './turns.ts';

// An outbound SMS or WhatsApp conversation (POST /chat/outbound): the agent's opening line goes
// out from one of its numbers, and the chat exists only once it has.

export interface NewOutboundChat {
  agent: Agent;
  /** The agent's number the conversation is from (its provider sends). */
  number: PhoneNumber;
  to: string;
  channel: 'sms' | 'whatsapp';
  metadata: Record<string, unknown>;
  /** The opening line; else the template's reference, else the agent's greeting. */
  initialMessage?: string;
  template?: { contentSid: string; variables?: Record<string, string> };
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

export function createOutboundChats(options: {
  store: Store;
  turns: ChatTurns;
  hub: MessagingHub;
  clock?: Clock;
}): (workspace: Workspace, chat: NewOutboundChat) => Promise<Chat> {
  const { store, turns, hub } = options;
  const clock = options.clock ?? systemClock;

  return async function startOutbound(workspace, request) {
    const { agent, number, to, channel, metadata, template } = request;
    const from = number.number;
    const adapter = hub.adapterFor(number.provider, ['body', 'from_number']);
    const opening = request.initialMessage ?? (template ? `[template ${template.contentSid}]` : undefined);
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

    if (channel === 'whatsapp' && !template) {
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

    const message: OutboundMessage = template
      ? { channel, from, to, template }
      : { channel, from, to, body: text };
    try {
      await hub.send(workspace.id, adapter, message);
    } catch (err) {
      if (err instanceof MessagingError) throw sendFailure(err);
      throw err;
    }
    // Created only once the message is out: a refused send leaves no chat behind.
    const chat = await store.chats.create(workspace.id, {
      id: chatId,
      agentId: agent.id,
      agentVersionId: versionId,
      channel,
      metadata,
      state: stateOf(conversation),
      status: statusOf(session),
      ownNumber: from,
      remoteNumber: to,
    });
    if (!chat) throw new Error('a new chat id collided');
    return chat;
  };
}
