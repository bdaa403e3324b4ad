import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import type { Store } from '../../src/store/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import {
  ActionRecorder,
  createBuiltinCalendar,
  createRealTimeBookingTools,
  type BuiltinCalendarRepo,
} from '../../src/actions/index.ts';

const at = (iso: string) => Date.parse(iso);

describe.each(storeTargets())('builtin calendar on $dialect', (target) => {
  let store: Store;
  let clock: ManualClock;
  let repo: BuiltinCalendarRepo;
  beforeEach(async () => {
    clock = createManualClock(at('2026-03-02T13:00:00Z')); // Monday 08:00 in New York
    store = await target.open(clock);
    repo = {
      workingHours: (w, a) => store.calendar.workingHours(w, a),
      bookings: (w, a, from, to) => store.calendar.bookings(w, a, from, to),
      book: (w, a, b) => store.calendar.book(w, a, b),
    };
    // Monday and Tuesday 09:00–10:30 New York time.
    await store.calendar.setWorkingHours('w1', 'agent1', [
      { weekday: 1, startMinute: 540, endMinute: 630, timeZone: 'America/New_York' },
      { weekday: 2, startMinute: 540, endMinute: 630, timeZone: 'America/New_York' },
    ]);
  });
  afterEach(() => store.close());

  it('lays slots on the working hours in their zone and leaves out booked ones', async () => {
    const cal = createBuiltinCalendar({ repo, workspaceId: 'w1', agentId: 'agent1', slotMinutes: 30 });
    const range = { startMs: at('2026-03-02T00:00:00Z'), endMs: at('2026-03-04T00:00:00Z') };
    const slots = await cal.freeSlots(range);
    expect(slots.map((s) => new Date(s.startMs).toISOString())).toEqual([
      '2026-03-02T14:00:00.000Z',
      '2026-03-02T14:30:00.000Z',
      '2026-03-02T15:00:00.000Z',
      '2026-03-03T14:00:00.000Z',
      '2026-03-03T14:30:00.000Z',
      '2026-03-03T15:00:00.000Z',
    ]);
    expect(await cal.book(slots[1]!, { name: 'Ada', email: 'ada@example.com' })).toMatchObject({ ok: true });
    expect((await cal.freeSlots(range)).length).toBe(5);
    // Another agent's calendar is separate.
    const other = createBuiltinCalendar({ repo, workspaceId: 'w1', agentId: 'agent2' });
    expect(await other.freeSlots(range)).toEqual([]);
    // Not a slot of the working hours.
    expect(
      await cal.book(
        { startMs: at('2026-03-02T14:10:00Z'), endMs: at('2026-03-02T14:40:00Z') },
        { name: 'a', email: 'a@b.co' },
      ),
    ).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('refuses a double booking atomically: of concurrent bookings of one slot exactly one wins', async () => {
    const slot = { startMs: at('2026-03-02T14:00:00Z'), endMs: at('2026-03-02T14:30:00Z') };
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.calendar.book('w1', 'agent1', { ...slot, name: `n${i}`, email: `n${i}@example.com` }),
      ),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const cal = createBuiltinCalendar({ repo, workspaceId: 'w1', agentId: 'agent1' });
    expect(await cal.book(slot, { name: 'Ada', email: 'ada@example.com' })).toEqual({
      ok: false,
      reason: 'slot_taken',
    });
    const booked = await store.calendar.bookings('w1', 'agent1', slot.startMs, slot.endMs);
    expect(booked).toHaveLength(1);
    expect(booked[0]).toMatchObject({ startMs: slot.startMs, endMs: slot.endMs, createdAt: clock.now() });
  });

  it('drives the booking tools end to end', async () => {
    const recorder = new ActionRecorder({ call_id: 'c', model_id: 'm', workspace_id: 'w1' }, { clock });
    const tools = createRealTimeBookingTools(
      {
        name: 'Demo',
        timezone: 'America/New_York',
        no_of_days: 2,
        max_time_slots: 3,
        min_hours_diff: 1.5,
        calendar: 'builtin',
      },
      { calendar: createBuiltinCalendar({ repo, workspaceId: 'w1', agentId: 'agent1' }), recorder, clock },
    );
    const offered = await tools.availability.execute({}, {});
    expect(offered.result).toMatchObject({
      slots: [
        { start: '2026-03-02T09:30:00-05:00' },
        { start: '2026-03-02T10:00:00-05:00' },
        { start: '2026-03-03T09:00:00-05:00' },
      ],
    });
    const booked = await tools.book.execute(
      { start: '2026-03-02T09:30:00-05:00', name: 'Ada', email: 'ada@example.com' },
      {},
    );
    expect(booked.result).toMatchObject({ ok: true, start: '2026-03-02T09:30:00-05:00' });
    const rows = await store.calendar.bookings('w1', 'agent1', 0, at('2027-01-01T00:00:00Z'));
    expect(rows.map((r) => [r.name, r.email])).toEqual([['Ada', 'ada@example.com']]);
    expect(recorder.timeline.map((t) => t.status)).toEqual(['success', 'success']);
  });
});
