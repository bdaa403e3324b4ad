import { describe, expect, it } from 'vitest';
import { createManualClock, parseZonedIso, toZonedIso, zonedToMs } from '../core/index.ts';
import { ActionRecorder, createRealTimeBookingTools, type CalendarPort, type TimeRange } from './index.ts';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

/** A fake calendar: fixed free slots; booking removes one; records calls. */
function fakeCalendar(slots: TimeRange[]) {
  const calls: Array<{ op: string; arg: unknown }> = [];
  const free = [...slots];
  const port: CalendarPort = {
    async freeSlots(range) {
      calls.push({ op: 'freeSlots', arg: range });
      return free.filter((s) => s.startMs >= range.startMs && s.startMs < range.endMs);
    },
    async book(slot, attendee) {
      calls.push({ op: 'book', arg: { slot, attendee } });
      const i = free.findIndex((s) => s.startMs === slot.startMs);
      if (i < 0) return { ok: false, reason: 'slot_taken' };
      free.splice(i, 1);
      return { ok: true, bookingId: `b${calls.length}` };
    },
  };
  return { port, calls };
}

const config = {
  name: 'Demo call',
  timezone: 'America/New_York',
  no_of_days: 3,
  max_time_slots: 2,
  min_hours_diff: 2,
  calendar: 'builtin',
};

describe('zoned time', () => {
  it('formats and parses ISO with the zone offset, across DST', () => {
    expect(toZonedIso(at('2026-01-05T14:00:00Z'), 'America/New_York')).toBe('2026-01-05T09:00:00-05:00');
    expect(toZonedIso(at('2026-07-06T13:00:00Z'), 'America/New_York')).toBe('2026-07-06T09:00:00-04:00');
    expect(toZonedIso(at('2026-07-06T13:00:00Z'), 'Asia/Kolkata')).toBe('2026-07-06T18:30:00+05:30');
    expect(zonedToMs({ year: 2026, month: 7, day: 6, hour: 9, minute: 0 }, 'America/New_York')).toBe(
      at('2026-07-06T13:00:00Z'),
    );
    expect(parseZonedIso('2026-07-06T09:00:00-04:00')).toBe(at('2026-07-06T13:00:00Z'));
    expect(parseZonedIso('2026-07-06T09:00:00')).toBeNull();
  });
});

describe('REAL_TIME_BOOKING tools', () => {
  const setup = (slots: TimeRange[]) => {
    const clock = createManualClock(at('2026-03-02T13:00:00Z'));
    const recorder = new ActionRecorder({ call_id: 'c', model_id: 'm', workspace_id: 'w' }, { clock });
    const calendar = fakeCalendar(slots);
    const tools = createRealTimeBookingTools(config, { calendar: calendar.port, recorder, clock });
    return { clock, recorder, calendar, tools };
  };
  const slot = (iso: string): TimeRange => ({ startMs: at(iso), endMs: at(iso) + HOUR / 2 });

  it('offers up to max_time_slots slots at least min_hours_diff ahead, in the timezone', async () => {
    const { tools, calendar, recorder } = setup([
      slot('2026-03-02T14:00:00Z'), // 1 h from now: too soon
      slot('2026-03-02T16:00:00Z'),
      slot('2026-03-03T14:00:00Z'),
      slot('2026-03-04T14:00:00Z'),
    ]);
    expect(tools.availability.spec.name).toBe('Demo_call_availability');
    expect(tools.book.spec.name).toBe('Demo_call_book');
    const out = await tools.availability.execute({}, {});
    expect(out.result).toEqual({
      ok: true,
      timezone: 'America/New_York',
      slots: [
        { start: '2026-03-02T11:00:00-05:00', end: '2026-03-02T11:30:00-05:00' },
        { start: '2026-03-03T09:00:00-05:00', end: '2026-03-03T09:30:00-05:00' },
      ],
    });
    expect(calendar.calls[0]?.arg).toEqual({
      startMs: at('2026-03-02T15:00:00Z'),
      endMs: at('2026-03-05T13:00:00Z'),
    });
    expect(recorder.timeline).toMatchObject([
      { name: 'Demo_call_availability', action_type: 'real_time_booking_action_type', status: 'success' },
    ]);
  });

  it('books an offered slot with the lead; refuses a slot not offered and a taken one', async () => {
    const { tools, calendar, recorder } = setup([slot('2026-03-02T16:00:00Z'), slot('2026-03-03T14:00:00Z')]);
    await tools.availability.execute({}, {});

    const notOffered = await tools.book.execute(
      { start: '2026-03-09T09:00:00-05:00', name: 'Ada', email: 'ada@example.com' },
      {},
    );
    expect(notOffered.result).toEqual({ ok: false, error: 'slot_not_offered' });
    const badEmail = await tools.book.execute(
      { start: '2026-03-02T11:00:00-05:00', name: 'Ada', email: 'x' },
      {},
    );
    expect(badEmail.result).toMatchObject({ ok: false });

    // The same instant written in another offset is the same slot.
    const ok = await tools.book.execute(
      { start: '2026-03-02T16:00:00Z', name: ' Ada ', email: 'ada@example.com' },
      {},
    );
    expect(ok.result).toMatchObject({
      ok: true,
      start: '2026-03-02T11:00:00-05:00',
      end: '2026-03-02T11:30:00-05:00',
    });
    expect(calendar.calls.at(-1)?.arg).toEqual({
      slot: { startMs: at('2026-03-02T16:00:00Z'), endMs: at('2026-03-02T16:30:00Z') },
      attendee: { name: 'Ada', email: 'ada@example.com', timeZone: 'America/New_York' },
    });
    // Booked: no longer offered.
    const again = await tools.book.execute(
      { start: '2026-03-02T11:00:00-05:00', name: 'Ada', email: 'ada@example.com' },
      {},
    );
    expect(again.result).toEqual({ ok: false, error: 'slot_not_offered' });

    expect(
      recorder.timeline.filter((t) => t.name === 'Demo_call_book').map((t) => [t.status, t.failed_reason]),
    ).toEqual([
      ['failed', 'slot_not_offered'],
      ['failed', expect.stringContaining('email')],
      ['success', null],
      ['failed', 'slot_not_offered'],
    ]);
  });

  it('records slot_taken when someone else books first, and a calendar failure', async () => {
    const { tools, calendar, recorder } = setup([slot('2026-03-02T16:00:00Z')]);
    await tools.availability.execute({}, {});
    await calendar.port.book(slot('2026-03-02T16:00:00Z'), { name: 'Other', email: 'o@example.com' });
    const taken = await tools.book.execute(
      { start: '2026-03-02T11:00:00-05:00', name: 'Ada', email: 'ada@example.com' },
      {},
    );
    expect(taken.result).toEqual({ ok: false, error: 'slot_taken' });

    const broken = createRealTimeBookingTools(config, {
      calendar: {
        freeSlots: async () => Promise.reject(new Error('down')),
        book: async () => ({ ok: false, reason: 'unavailable' }),
      },
      recorder,
    });
    const out = await broken.availability.execute({}, {});
    expect(out.result).toMatchObject({ ok: false, error: expect.stringContaining('down') });
    expect(recorder.timeline.at(-1)).toMatchObject({
      status: 'failed',
      failed_reason: expect.stringContaining('down'),
    });
  });

  it('starts offers at first_appt_date (a day in the timezone) and counts no_of_days from it', async () => {
    const clock = createManualClock(at('2026-03-02T13:00:00Z'));
    const calendar = fakeCalendar([]);
    const tools = createRealTimeBookingTools(
      { ...config, first_appt_date: '2026-03-10' },
      { calendar: calendar.port, clock },
    );
    await tools.availability.execute({}, {});
    expect(calendar.calls[0]?.arg).toEqual({
      startMs: at('2026-03-10T04:00:00Z'), // midnight in New York (EDT from 2026-03-08)
      endMs: at('2026-03-13T04:00:00Z'),
    });
    // A first day already past changes nothing.
    const past = fakeCalendar([]);
    await createRealTimeBookingTools(
      { ...config, first_appt_date: '2026-01-01' },
      { calendar: past.port, clock },
    ).availability.execute({}, {});
    expect(past.calls[0]?.arg).toEqual({
      startMs: at('2026-03-02T15:00:00Z'),
      endMs: at('2026-03-05T13:00:00Z'),
    });
  });

  it('takes the published defaults (3 days, 3 slots, 3 hours) for absent numbers', async () => {
    const clock = createManualClock(at('2026-03-02T13:00:00Z'));
    const hourly = Array.from({ length: 10 }, (_, i) => ({
      startMs: at('2026-03-02T17:00:00Z') + i * HOUR,
      endMs: at('2026-03-02T17:30:00Z') + i * HOUR,
    }));
    const calendar = fakeCalendar(hourly);
    const tools = createRealTimeBookingTools(
      { name: 'Demo', timezone: 'America/New_York' },
      { calendar: calendar.port, clock },
    );
    const out = await tools.availability.execute({}, {});
    expect(calendar.calls[0]?.arg).toEqual({
      startMs: at('2026-03-02T16:00:00Z'),
      endMs: at('2026-03-05T13:00:00Z'),
    });
    expect((out.result as { slots: unknown[] }).slots).toHaveLength(3);
  });
});
