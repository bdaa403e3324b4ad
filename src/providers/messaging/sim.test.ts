import { describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import { runMessagingContract } from '../testing/messaging-contract.ts';
import { createSimMessaging } from './sim.ts';
import { MessagingError, type InboundMessage } from './types.ts';

runMessagingContract('sim', () => {
  const sim = createSimMessaging();
  return { messaging: sim, deliveries: () => sim.sent().length };
});

const AGENT = '+14155550100';
const USER = '+14155550123';

describe('sim messaging', () => {
  it('records each message as sent, with an SM id and the time on its clock', async () => {
    const clock = createManualClock(Date.UTC(2026, 2, 1, 12));
    const sim = createSimMessaging({ clock });
    const first = await sim.send({ channel: 'sms', from: AGENT, to: USER, body: 'one' });
    clock.advance(5_000);
    const template = { contentSid: 'HX0123456789abcdef0123456789abcdef', variables: { '1': 'Ada' } };
    const second = await sim.send({ channel: 'whatsapp', from: AGENT, to: USER, template });

    expect(first).toEqual({ id: expect.stringMatching(/^SM[0-9a-f]{32}$/), status: 'sent' });
    expect(second.id).toMatch(/^SM[0-9a-f]{32}$/);
    expect(sim.sent()).toEqual([
      {
        id: first.id,
        status: 'sent',
        sentAt: Date.UTC(2026, 2, 1, 12),
        channel: 'sms',
        from: AGENT,
        to: USER,
        body: 'one',
      },
      {
        id: second.id,
        status: 'sent',
        sentAt: Date.UTC(2026, 2, 1, 12) + 5_000,
        channel: 'whatsapp',
        from: AGENT,
        to: USER,
        template,
      },
    ]);
  });

  it('hands out copies: changing them or the sent message does not change the record', async () => {
    const sim = createSimMessaging();
    const template = { contentSid: 'HXabc', variables: { '1': 'Ada' } };
    await sim.send({ channel: 'whatsapp', from: AGENT, to: USER, template });
    template.variables['1'] = 'changed';
    const copy = sim.sent()[0];
    if (copy) copy.to = '+10000000000';
    expect(sim.sent()[0]).toMatchObject({ to: USER, template: { variables: { '1': 'Ada' } } });
  });

  it('refuses numbers ending in 2222 as undeliverable (502, not retryable) and records nothing', async () => {
    const sim = createSimMessaging();
    const error = await sim
      .send({ channel: 'sms', from: AGENT, to: '+14155552222', body: 'hi' })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(MessagingError);
    expect(error).toMatchObject({ code: 'undeliverable', status: 502, retryable: false });
    expect(sim.sent()).toEqual([]);
    // Only the recipient matters: an agent number ending in 2222 can send.
    await expect(
      sim.send({ channel: 'sms', from: '+14155552222', to: USER, body: 'hi' }),
    ).resolves.toMatchObject({
      status: 'sent',
    });
  });

  it('refuses to send when the signal is already aborted', async () => {
    const sim = createSimMessaging();
    const controller = new AbortController();
    controller.abort();
    await expect(
      sim.send({ channel: 'sms', from: AGENT, to: USER, body: 'hi' }, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'messaging_aborted' });
    expect(sim.sent()).toEqual([]);
  });

  it('plays a reply to the registered receiver and awaits it', async () => {
    const sim = createSimMessaging();
    const received: InboundMessage[] = [];
    let finished = false;
    sim.onInbound(async (message) => {
      received.push(message);
      await Promise.resolve();
      finished = true;
    });

    const sent = await sim.send({ channel: 'whatsapp', from: AGENT, to: USER, body: 'Shall we meet at 7?' });
    const reply = await sim.deliverInbound({
      channel: 'whatsapp',
      from: USER,
      to: AGENT,
      body: 'Yes please',
    });

    expect(finished).toBe(true);
    expect(reply).toEqual({
      channel: 'whatsapp',
      from: USER,
      to: AGENT,
      body: 'Yes please',
      providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/),
    });
    expect(reply.providerMessageId).not.toBe(sent.id);
    expect(received).toEqual([reply]);
  });

  it('calls receivers in order; unsubscribing removes only that receiver', async () => {
    const sim = createSimMessaging();
    const calls: string[] = [];
    const offA = sim.onInbound(() => {
      calls.push('a');
    });
    sim.onInbound(() => {
      calls.push('b');
    });
    await sim.deliverInbound({ channel: 'sms', from: USER, to: AGENT, body: '1' });
    offA();
    offA();
    await sim.deliverInbound({ channel: 'sms', from: USER, to: AGENT, body: '2' });
    expect(calls).toEqual(['a', 'b', 'b']);
  });

  it('fails a reply when nobody receives it, and passes on a receiver failure', async () => {
    const sim = createSimMessaging();
    await expect(
      sim.deliverInbound({ channel: 'sms', from: USER, to: AGENT, body: 'hello?' }),
    ).rejects.toMatchObject({
      code: 'no_receiver',
    });
    const off = sim.onInbound(() => {
      throw new Error('engine down');
    });
    await expect(sim.deliverInbound({ channel: 'sms', from: USER, to: AGENT, body: 'x' })).rejects.toThrow(
      'engine down',
    );
    off();
    const handler = vi.fn();
    sim.onInbound(handler);
    await sim.deliverInbound({ channel: 'sms', from: USER, to: AGENT, body: 'y' });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('refuses a reply from a number that is not E.164', async () => {
    const sim = createSimMessaging();
    const handler = vi.fn();
    sim.onInbound(handler);
    await expect(
      sim.deliverInbound({ channel: 'sms', from: '555-0123', to: AGENT, body: 'x' }),
    ).rejects.toBeInstanceOf(MessagingError);
    expect(handler).not.toHaveBeenCalled();
  });
});
