import { describe, expect, it } from 'vitest';
import { defaultWorkingHours, parseCalendarRef } from './calendar.ts';
import { ragConditionAllows } from './knowledge.ts';
import { createReplyHub } from './replies.ts';

describe('rag_use_condition', () => {
  it('empty or always: every turn; never: no turn', () => {
    for (const c of ['', 'always', 'Always.', 'every turn']) expect(ragConditionAllows(c, 'ok')).toBe(true);
    for (const c of ['never', 'off', 'Disabled'])
      expect(ragConditionAllows(c, 'What does it cost?')).toBe(false);
  });

  it('a condition in words: questions, or a turn sharing a meaningful word with it', () => {
    const c = 'When the caller asks about pricing or refunds';
    expect(ragConditionAllows(c, 'How much is the Pro plan?')).toBe(true);
    expect(ragConditionAllows(c, 'tell me about your plans')).toBe(true);
    expect(ragConditionAllows(c, 'I want a refund for last month')).toBe(true);
    expect(ragConditionAllows(c, 'pricing matters to me')).toBe(true);
    expect(ragConditionAllows(c, 'Sure, sounds good.')).toBe(false);
    // Generic words of a condition ("caller", "asks") match nothing by themselves.
    expect(ragConditionAllows(c, 'the caller here, thanks')).toBe(false);
  });
});

describe('calendar references', () => {
  it('builtin by default; Cal.com with a key and an event type; anything else names its field', () => {
    for (const v of [undefined, null, '', 'builtin', { provider: 'builtin' }])
      expect(parseCalendarRef(v)).toEqual({ ok: true, ref: { provider: 'builtin' } });
    expect(
      parseCalendarRef({ provider: 'calcom', api_key: 'k', event_type_id: 3, length_minutes: 45 }),
    ).toEqual({
      ok: true,
      ref: { provider: 'calcom', apiKey: 'k', eventTypeId: 3, lengthMinutes: 45 },
    });
    const field = (v: unknown) => {
      const r = parseCalendarRef(v);
      return r.ok ? null : r.field;
    };
    expect(field('google')).toBe('calendar');
    expect(field(['calcom'])).toBe('calendar.provider');
    expect(field({ provider: 'calcom', event_type_id: 3 })).toBe('calendar.api_key');
    expect(field({ provider: 'calcom', api_key: 'k', event_type_id: 0 })).toBe('calendar.event_type_id');
    expect(field({ provider: 'calcom', api_key: 'k', event_type_id: 3, base_url: 'nope' })).toBe(
      'calendar.base_url',
    );
    expect(field({ provider: 'calcom', api_key: 'k', event_type_id: 3, length_minutes: 2 })).toBe(
      'calendar.length_minutes',
    );
  });

  it('default hours are Monday to Friday, nine to five, in the given zone', () => {
    expect(defaultWorkingHours('Asia/Tokyo')).toEqual(
      [1, 2, 3, 4, 5].map((weekday) => ({
        weekday,
        startMinute: 540,
        endMinute: 1020,
        timeZone: 'Asia/Tokyo',
      })),
    );
  });
});

describe('the reply hub', () => {
  const query = { channel: 'sms' as const, from: '+1', to: '+2', sinceMs: 100 };

  it('gives a matching message to the waiting action once; others are not taken', async () => {
    const hub = createReplyHub();
    const waiting = hub.waitForReply(query, new AbortController().signal);
    expect(hub.waiting).toBe(1);
    expect(hub.offer({ channel: 'whatsapp', from: '+1', to: '+2', body: 'x', receivedAt: 200 })).toBe(false);
    expect(hub.offer({ channel: 'sms', from: '+3', to: '+2', body: 'x', receivedAt: 200 })).toBe(false);
    expect(hub.offer({ channel: 'sms', from: '+1', to: '+2', body: 'early', receivedAt: 50 })).toBe(false);
    expect(hub.offer({ channel: 'sms', from: '+1', to: '+2', body: 'YES', receivedAt: 200 })).toBe(true);
    await expect(waiting).resolves.toEqual({ body: 'YES' });
    expect(hub.offer({ channel: 'sms', from: '+1', to: '+2', body: 'again', receivedAt: 300 })).toBe(false);
  });

  it('an aborted wait is forgotten', async () => {
    const hub = createReplyHub();
    const controller = new AbortController();
    const waiting = hub.waitForReply(query, controller.signal);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(hub.waiting).toBe(0);
    expect(hub.offer({ channel: 'sms', from: '+1', to: '+2', body: 'YES', receivedAt: 200 })).toBe(false);
  });
});
