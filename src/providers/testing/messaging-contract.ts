import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessagingError, type Messaging, type OutboundMessage } from '../messaging/types.ts';

// The behaviour every Messaging adapter shares. Each adapter's test file runs it against a
// target: the adapter plus a way to count how often it reached its provider, so the suite can
// tell that a bad message was refused before anyone was contacted.

export interface MessagingTarget {
  messaging: Messaging;
  /** How many messages (or requests) have reached the provider so far. */
  deliveries(): number;
  close?(): Promise<void>;
}

const AGENT = '+14155550100';
const USER = '+14155550123';

export function runMessagingContract(
  name: string,
  make: () => MessagingTarget | Promise<MessagingTarget>,
): void {
  describe(`Messaging contract: ${name}`, () => {
    let target: MessagingTarget;
    beforeEach(async () => {
      target = await make();
    });
    afterEach(async () => {
      await target.close?.();
    });

    const expectSent = async (message: OutboundMessage) => {
      const before = target.deliveries();
      const sent = await target.messaging.send(message);
      expect(typeof sent.id).toBe('string');
      expect(sent.id.length).toBeGreaterThan(0);
      expect(['queued', 'sent']).toContain(sent.status);
      expect(target.deliveries()).toBe(before + 1);
      return sent;
    };

    const expectRefused = async (message: OutboundMessage) => {
      const before = target.deliveries();
      const error = await target.messaging.send(message).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(MessagingError);
      expect(error).toMatchObject({ status: 400, retryable: false });
      expect(target.deliveries()).toBe(before);
    };

    it('has a name', () => {
      expect(target.messaging.name).toMatch(/\S/);
    });

    it('sends an SMS', async () => {
      await expectSent({ channel: 'sms', from: AGENT, to: USER, body: 'Your table is booked for 7pm.' });
    });

    it('sends a WhatsApp text', async () => {
      await expectSent({ channel: 'whatsapp', from: AGENT, to: USER, body: 'Hola! ¿Seguimos mañana? 👋' });
    });

    it('sends a WhatsApp template', async () => {
      await expectSent({
        channel: 'whatsapp',
        from: AGENT,
        to: USER,
        template: { contentSid: 'HX0123456789abcdef0123456789abcdef', variables: { '1': 'Ada', '2': '7pm' } },
      });
    });

    it('sends a template without variables', async () => {
      await expectSent({
        channel: 'whatsapp',
        from: AGENT,
        to: USER,
        template: { contentSid: 'HX0123456789abcdef0123456789abcdef' },
      });
    });

    it('gives every message its own id', async () => {
      const message: OutboundMessage = { channel: 'sms', from: AGENT, to: USER, body: 'hi' };
      const first = await target.messaging.send(message);
      const second = await target.messaging.send(message);
      expect(first.id).not.toBe(second.id);
    });

    it('refuses a message with neither body nor template', async () => {
      await expectRefused({ channel: 'sms', from: AGENT, to: USER });
      await expectRefused({ channel: 'whatsapp', from: AGENT, to: USER, body: '' });
    });

    it('refuses a template without a contentSid', async () => {
      await expectRefused({ channel: 'whatsapp', from: AGENT, to: USER, template: { contentSid: '' } });
    });

    it('refuses numbers that are not E.164, before contacting anyone', async () => {
      for (const bad of ['4155550123', '14155550123', '+1 415 555 0123', 'whatsapp:+14155550123', '+1', '']) {
        await expectRefused({ channel: 'sms', from: AGENT, to: bad, body: 'hi' });
        await expectRefused({ channel: 'whatsapp', from: bad, to: USER, body: 'hi' });
      }
    });

    it('refuses an unknown channel', async () => {
      await expectRefused({ channel: 'fax' as 'sms', from: AGENT, to: USER, body: 'hi' });
    });
  });
}
