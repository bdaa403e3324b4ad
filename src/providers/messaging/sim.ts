import { systemClock, type Clock } from '../../core/index.ts';
import { checkOutbound, invalidMessage, isE164, newMessageSid } from './outbound.ts';
import {
  MessagingError,
  type InboundMessage,
  type Messaging,
  type MessagingChannel,
  type OutboundMessage,
  type SentMessage,
} from './types.ts';

// The simulated carrier: an in-process stand-in for a text-message provider, used by default
// and in tests. `send` checks a message as the real adapters do and records it; replies from
// the other side are played with `deliverInbound`, which hands them to the registered receivers.
//
// Number rule: sending to a number that ends in 2222 (for example +14155552222) fails with a
// MessagingError (502, code `undeliverable`, not retryable), as a carrier reports a number that
// cannot receive messages; nothing is recorded. Use such a number to test failure paths.

export const SIM_UNDELIVERABLE_SUFFIX = '2222';

/** A message the sim accepted, as it was sent. */
export interface SimSentMessage extends OutboundMessage {
  id: string;
  status: 'sent';
  /** Milliseconds on the sim's clock. */
  sentAt: number;
}

export type InboundHandler = (message: InboundMessage) => void | Promise<void>;

export interface SimInbound {
  channel: MessagingChannel;
  /** E.164 numbers: `from` is the other side, `to` is the number the agent sends from. */
  from: string;
  to: string;
  body: string;
}

export interface SimMessaging extends Messaging {
  /** The accepted outbound messages, oldest first (copies). */
  sent(): SimSentMessage[];
  /**
   * Registers a receiver of replies; returns the function that removes it. Receivers are called
   * one after another, in the order they registered.
   */
  onInbound(handler: InboundHandler): () => void;
  /**
   * Plays a reply from the other side: builds the InboundMessage (with a generated
   * providerMessageId), awaits every receiver and returns the message. Throws a MessagingError
   * (503, `no_receiver`) when no receiver is registered, and rethrows a receiver's failure.
   */
  deliverInbound(input: SimInbound): Promise<InboundMessage>;
}

export function createSimMessaging(options: { clock?: Clock } = {}): SimMessaging {
  const clock = options.clock ?? systemClock;
  const outbox: SimSentMessage[] = [];
  const handlers: InboundHandler[] = [];

  return {
    name: 'sim',

    async send(message, sendOptions = {}): Promise<SentMessage> {
      checkOutbound(message);
      if (sendOptions.signal?.aborted) {
        throw new MessagingError(
          'sending was aborted',
          'messaging_aborted',
          503,
          false,
          sendOptions.signal.reason,
        );
      }
      if (message.to.endsWith(SIM_UNDELIVERABLE_SUFFIX)) {
        throw new MessagingError(
          `${message.to} cannot receive messages (the sim refuses numbers ending in ${SIM_UNDELIVERABLE_SUFFIX})`,
          'undeliverable',
          502,
          false,
        );
      }
      const record: SimSentMessage = {
        channel: message.channel,
        from: message.from,
        to: message.to,
        ...(message.body !== undefined && { body: message.body }),
        ...(message.template !== undefined && { template: structuredClone(message.template) }),
        id: newMessageSid(),
        status: 'sent',
        sentAt: clock.now(),
      };
      outbox.push(record);
      return { id: record.id, status: 'sent' };
    },

    sent: () => outbox.map((record) => structuredClone(record)),

    onInbound(handler) {
      handlers.push(handler);
      return () => {
        const index = handlers.indexOf(handler);
        if (index !== -1) handlers.splice(index, 1);
      };
    },

    async deliverInbound(input) {
      if (input.channel !== 'sms' && input.channel !== 'whatsapp') {
        throw invalidMessage(`unknown channel ${JSON.stringify(input.channel)}: use sms or whatsapp`);
      }
      for (const field of ['from', 'to'] as const) {
        if (!isE164(input[field]))
          throw invalidMessage(`${field} must be an E.164 number such as +14155550123`);
      }
      if (typeof input.body !== 'string') throw invalidMessage('an inbound message needs a body');
      if (handlers.length === 0) {
        throw new MessagingError('no receiver is registered for inbound messages', 'no_receiver', 503, true);
      }
      const message: InboundMessage = {
        channel: input.channel,
        from: input.from,
        to: input.to,
        body: input.body,
        providerMessageId: newMessageSid(),
      };
      for (const handler of [...handlers]) await handler({ ...message });
      return message;
    },
  };
}
