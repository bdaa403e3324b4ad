import type { Attendee, BookingResult, CalendarPort, TimeRange } from './ports.ts';
import { isValidTimeZone, wallTime, zonedToMs } from '../core/index.ts';

// The builtin calendar: an agent's weekly working hours and its bookings, kept by the store
// (src/store/calendar.ts) and reached through the small `BuiltinCalendarRepo` port below (actions
// may not import store). Slots are `slotMinutes` long, laid from the start of each working-hours
// window in that window's zone; a slot is free unless a booking overlaps it. Double booking is
// refused by the repository atomically (one booking per agent and start).

export interface WorkingHours {
  /** 0 = Sunday … 6 = Saturday, in `timeZone`. */
  weekday: number;
  /** Minutes after local midnight; `endMinute` exclusive. */
  startMinute: number;
  endMinute: number;
  timeZone: string;
}

export interface BuiltinCalendarRepo {
  workingHours(workspaceId: string, agentId: string): Promise<WorkingHours[]>;
  /** Bookings that overlap `[fromMs, toMs)`. */
  bookings(workspaceId: string, agentId: string, fromMs: number, toMs: number): Promise<TimeRange[]>;
  /** Null when the agent already has a booking that starts then. */
  book(
    workspaceId: string,
    agentId: string,
    booking: { startMs: number; endMs: number; name: string; email: string },
  ): Promise<{ id: string } | null>;
}

export interface BuiltinCalendarOptions {
  repo: BuiltinCalendarRepo;
  workspaceId: string;
  agentId: string;
  /** Default 30. */
  slotMinutes?: number;
}

const DAY = 86_400_000;

export function createBuiltinCalendar(options: BuiltinCalendarOptions): CalendarPort {
  const slotMs = (options.slotMinutes ?? 30) * 60_000;
  const { repo, workspaceId, agentId } = options;

  async function candidates(range: TimeRange): Promise<TimeRange[]> {
    const hours = await repo.workingHours(workspaceId, agentId);
    const out = new Map<number, TimeRange>();
    for (const h of hours) {
      if (!isValidTimeZone(h.timeZone)) continue;
      // Every local date the range touches in this zone (a day's margin either side).
      const first = wallTime(range.startMs - DAY, h.timeZone);
      let day = Date.UTC(first.year, first.month - 1, first.day);
      const last = range.endMs + DAY;
      for (; day <= last; day += DAY) {
        const d = new Date(day);
        if (d.getUTCDay() !== h.weekday) continue;
        for (let m = h.startMinute; m + slotMs / 60_000 <= h.endMinute; m += slotMs / 60_000) {
          const startMs = zonedToMs(
            {
              year: d.getUTCFullYear(),
              month: d.getUTCMonth() + 1,
              day: d.getUTCDate(),
              hour: Math.floor(m / 60),
              minute: m % 60,
            },
            h.timeZone,
          );
          if (startMs >= range.startMs && startMs < range.endMs)
            out.set(startMs, { startMs, endMs: startMs + slotMs });
        }
      }
    }
    return [...out.values()].sort((a, b) => a.startMs - b.startMs);
  }

  return {
    async freeSlots(range) {
      const slots = await candidates(range);
      if (slots.length === 0) return [];
      const last = slots[slots.length - 1]!;
      const busy = await repo.bookings(workspaceId, agentId, range.startMs, last.endMs);
      return slots.filter((s) => !busy.some((b) => b.startMs < s.endMs && s.startMs < b.endMs));
    },
    async book(slot: TimeRange, attendee: Attendee): Promise<BookingResult> {
      const free = await candidates({ startMs: slot.startMs, endMs: slot.startMs + 1 });
      if (!free.some((s) => s.startMs === slot.startMs && s.endMs === slot.endMs))
        return { ok: false, reason: 'invalid', detail: 'not a slot of the working hours' };
      const busy = await repo.bookings(workspaceId, agentId, slot.startMs, slot.endMs);
      if (busy.length > 0) return { ok: false, reason: 'slot_taken' };
      const booked = await repo.book(workspaceId, agentId, {
        startMs: slot.startMs,
        endMs: slot.endMs,
        name: attendee.name,
        email: attendee.email,
      });
      return booked ? { ok: true, bookingId: booked.id } : { ok: false, reason: 'slot_taken' };
    },
  };
}
