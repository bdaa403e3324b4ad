import { slugOf, systemClock, type Clock, type Logger } from '../core/index.ts';
import { MessagingError, type InboundMessage, type Messaging } from '../providers/index.ts';
import { adapterName, type MessagingHub, type ReplyHub } from '../runtime/index.ts';
import type { Store } from '../store/index.ts';
import { conflict400, type ChatTurns, type TurnOutcome } from './turns.ts';

// Chats over text messages (SMS, WhatsApp): sending goes through the runtime's messaging hub;
// here is the shared handling of an inbound message (a waiting messaging action's reply, else
// find the ongoing chat of the pair, run the turn as POST /chat/{id}/messages does, send the
// agent's answer back through the same adapter).

/** WhatsApp's customer-service window: free text only within 24 h of the user's last message. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The longest message a chat takes (longer inbound texts are cut to it). */
export const MAX_MESSAGE_CHARS = 4000;

/** Where a channel logs what it ignored (the request's logger on the API). */
export type ChatLog = Pick<Logger, 'info' | 'warn'>;

export interface InboundOutcome {
  chatId: string;
  turn: TurnOutcome;
}

export interface ChatChannels extends Pick<MessagingHub, 'messaging' | 'adapterFor' | 'send' | 'simOutbox'> {
  /**
   * Continues the ongoing chat of an inbound message's pair (only in `workspaceId` when given)
   * and sends the answer back through `via`; null when the message was ignored (no ongoing chat).
   */
  receive(
    message: InboundMessage,
    via: Messaging,
    scope: { workspaceId?: string },
    log: ChatLog,
  ): Promise<InboundOutcome | null>;
}

export function createChatChannels(options: {
  store: Store;
  turns: ChatTurns;
  hub: MessagingHub;
  /** Waiting messaging actions take their replies first. */
  replies?: ReplyHub;
  clock?: Clock;
}): ChatChannels {
  const { store, turns, hub } = options;
  const clock = options.clock ?? systemClock;

  const channels: ChatChannels = {
    messaging: hub.messaging,
    adapterFor: hub.adapterFor,
    send: hub.send,
    simOutbox: hub.simOutbox,

    async receive(message, via, scope, log) {
      const reply = { channel: message.channel, from: message.from, to: message.to, body: message.body };
      if (options.replies?.offer({ ...reply, receivedAt: clock.now() })) {
        log.info({ channel: message.channel }, 'inbound message taken as the reply to a messaging action');
        return null;
      }
      const pair = { channel: message.channel, ownNumber: message.to, remoteNumber: message.from };
      const found = await store.chats.findOngoing(pair, scope.workspaceId);
      if (!found || found.ownNumber === null || found.remoteNumber === null) {
        log.info({ channel: message.channel }, 'inbound message matches no ongoing chat; ignored');
        return null;
      }
      const number = await store.phoneNumbers.getBySlug(found.workspaceId, slugOf(found.ownNumber));
      if (adapterName(number?.provider) !== via.name) {
        log.info(
          { channel: message.channel, via: via.name },
          'inbound message from another provider; ignored',
        );
        return null;
      }
      const text = message.body.trim().slice(0, MAX_MESSAGE_CHARS);
      if (text === '') {
        log.info({ chat_id: found.id }, 'inbound message without text; ignored');
        return null;
      }
      const turn = await turns.inOrder(found.id, async () => {
        // A concurrent writer (another process) moved the chat: reload and answer once more.
        for (let attempt = 0; attempt < 2; attempt++) {
          const chat = await store.chats.get(found.workspaceId, found.id);
          if (!chat || chat.status !== 'ongoing') return null;
          const workspace = await store.workspaces.get(chat.workspaceId);
          if (!workspace) return null;
          const result = await turns.turn(chat, workspace, text, { lastInboundAt: clock.now() });
          if (result) return result;
        }
        throw conflict400(`chat ${found.id} was changed by another request; send the message again`);
      });
      if (!turn) {
        log.info({ chat_id: found.id }, 'the chat ended before the inbound message; ignored');
        return null;
      }
      if (turn.agent_message !== '') {
        try {
          await channels.send(found.workspaceId, via, {
            channel: message.channel,
            from: found.ownNumber,
            to: found.remoteNumber,
            body: turn.agent_message,
          });
        } catch (err) {
          if (!(err instanceof MessagingError)) throw err;
          // The answer is in the chat; only its delivery failed. The code, never the text (numbers).
          log.warn({ chat_id: found.id, code: err.code }, 'the reply to an inbound message was not sent');
        }
      }
      return { chatId: found.id, turn };
    },
  };
  return channels;
}
