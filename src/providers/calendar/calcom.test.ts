import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_EVENT_TYPE_ID, startFakeCalcom, type FakeCalcom } from '../../../test/calcom-server/index.ts';
import { createCalcomCalendar } from './calcom.ts';

const at = (iso: string) => Date.parse(iso);

describe('Cal.com calendar', () => {
  let fake: FakeCalcom;
  beforeEach(async () => {
    fake = await startFakeCalcom({
      slots: [
        '2026-03-02T09:00:00.000-05:00',
        '2026-03-02T09:30:00.000-05:00',
        '2026-03-05T10:00:00.000-05:00',
      ],
    });
  });
  afterEach(() => fake.close());

  const calendar = () =>
    createCalcomCalendar({ apiKey: fake.apiKey, eventTypeId: FAKE_EVENT_TYPE_ID, baseUrl: fake.url });

  it('lists slots within the range with their ends, speaking v2', async () => {
    const slots = await calendar().freeSlots({
      startMs: at('2026-03-01T00:00:00Z'),
      endMs: at('2026-03-04T00:00:00Z'),
    });
    expect(slots).toEqual([
      { startMs: at('2026-03-02T14:00:00Z'), endMs: at('2026-03-02T14:30:00Z') },
      { startMs: at('2026-03-02T14:30:00Z'), endMs: at('2026-03-02T15:00:00Z') },
    ]);
    const req = fake.requests[0]!;
    expect(req.method).toBe('GET');
    const url = new URL(req.url, 'http://x');
    expect(url.pathname).toBe('/v2/slots');
    expect(url.searchParams.get('eventTypeId')).toBe(String(FAKE_EVENT_TYPE_ID));
    expect(url.searchParams.get('start')).toBe('2026-03-01T00:00:00.000Z');
    expect(req.headers['cal-api-version']).toBe('2024-09-04');
    expect(req.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  });

  it('books a slot once; the second booking of it is slot_taken', async () => {
    const cal = calendar();
    const slot = { startMs: at('2026-03-02T14:00:00Z'), endMs: at('2026-03-02T14:30:00Z') };
    const first = await cal.book(slot, {
      name: 'Ada',
      email: 'ada@example.com',
      timeZone: 'America/New_York',
    });
    expect(first).toEqual({ ok: true, bookingId: 'bk_1' });
    expect(fake.requests[0]?.body).toEqual({
      start: '2026-03-02T14:00:00.000Z',
      eventTypeId: FAKE_EVENT_TYPE_ID,
      attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'America/New_York' },
    });
    expect(fake.requests[0]?.headers['cal-api-version']).toBe('2024-08-13');
    expect(await cal.book(slot, { name: 'Bob', email: 'bob@example.com' })).toMatchObject({
      ok: false,
      reason: 'slot_taken',
    });
    // A booked slot is no longer offered.
    const slots = await cal.freeSlots({
      startMs: at('2026-03-02T00:00:00Z'),
      endMs: at('2026-03-03T00:00:00Z'),
    });
    expect(slots.map((s) => s.startMs)).toEqual([at('2026-03-02T14:30:00Z')]);
  });

  it('a wrong key fails listing and reports booking unavailable; a dead server too', async () => {
    const bad = createCalcomCalendar({ apiKey: 'nope', eventTypeId: FAKE_EVENT_TYPE_ID, baseUrl: fake.url });
    await expect(bad.freeSlots({ startMs: 0, endMs: 1 })).rejects.toThrow(/401/);
    expect(await bad.book({ startMs: 0, endMs: 1 }, { name: 'a', email: 'a@b.co' })).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
    const url = fake.url;
    await fake.close();
    const dead = createCalcomCalendar({ apiKey: 'k', eventTypeId: 1, baseUrl: url, timeoutMs: 200 });
    expect(await dead.book({ startMs: 0, endMs: 1 }, { name: 'a', email: 'a@b.co' })).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
    fake = await startFakeCalcom();
  });
});
