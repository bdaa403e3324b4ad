import { systemClock, type Clock, type RealTimeBookingConfig } from '../core/index.ts';
import type { CalendarPort, TimeRange } from './ports.ts';
import type { ActionRecorder } from './recorder.ts';
import { sanitizeToolName, type ActionTool } from './types.ts';
import { isValidTimeZone, parseZonedIso, toZonedIso, zonedToMs } from '../core/index.ts';

// REAL_TIME_BOOKING (WIRE.md section 8) as two tools over a `CalendarPort`:
// `<name>_availability` offers up to `max_time_slots` free slots that start at least
// `min_hours_diff` hours from now and within `no_of_days` days, shown in `timezone`;
// `<name>_book` books one of the slots offered in this conversation for the lead.
// Each tool records its attempts under its own (tool) name. With `first_appt_date`
// (`YYYY-MM-DD`, a day in `timezone`), nothing before that day is offered and the `no_of_days`
// count from it when it is in the future. Absent numbers take the published defaults (3 each).

export const REAL_TIME_BOOKING_ACTION_TYPE = 'real_time_booking_action_type';
export const DEFAULT_BOOKING_DAYS = 3;
export const DEFAULT_BOOKING_SLOTS = 3;
export const DEFAULT_BOOKING_MIN_HOURS = 3;

/**
 * The stored configuration (src/core/action-config.ts). `first_appt_date` is the first day to
 * offer, `YYYY-MM-DD` in `timezone`; `calendar` says which calendar (`builtin`, or the provider's),
 * whose adapter the caller chooses.
 */
export type { RealTimeBookingConfig };

export interface RealTimeBookingDeps {
  calendar: CalendarPort;
  recorder?: ActionRecorder;
  clock?: Clock;
  action_id?: string;
}

export interface RealTimeBookingTools {
  availability: ActionTool;
  book: ActionTool;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The start of `date` (`YYYY-MM-DD`) in `timeZone`; 0 when absent or not a date. */
function firstDayMs(date: string | undefined, timeZone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date ?? '');
  if (!m) return 0;
  return zonedToMs(
    { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: 0, minute: 0 },
    timeZone,
  );
}

export function createRealTimeBookingTools(
  config: RealTimeBookingConfig,
  deps: RealTimeBookingDeps,
): RealTimeBookingTools {
  const clock = deps.clock ?? systemClock;
  const base = sanitizeToolName(config.name).slice(0, 50);
  const availabilityName = `${base}_availability`;
  const bookName = `${base}_book`;
  const timeZone = isValidTimeZone(config.timezone) ? config.timezone : 'UTC';
  const days = Math.max(0, config.no_of_days ?? DEFAULT_BOOKING_DAYS);
  const maxSlots = Math.max(0, config.max_time_slots ?? DEFAULT_BOOKING_SLOTS);
  const minHours = Math.max(0, config.min_hours_diff ?? DEFAULT_BOOKING_MIN_HOURS);
  const firstDay = firstDayMs(config.first_appt_date, timeZone);
  /** Where offers may start and end at `now`. */
  const window = (now: number): TimeRange => {
    const from = Math.max(now, firstDay);
    return { startMs: Math.max(now + minHours * HOUR, firstDay), endMs: from + days * DAY };
  };
  const hardCoded = {
    timezone: config.timezone,
    no_of_days: days,
    max_time_slots: maxSlots,
    min_hours_diff: minHours,
    ...(config.first_appt_date ? { first_appt_date: config.first_appt_date } : {}),
    calendar: config.calendar ?? null,
  };
  /** Slots offered in this conversation, by start. */
  const offered = new Map<number, TimeRange>();

  const availabilitySchema = { type: 'object', properties: {}, additionalProperties: false };
  const bookSchema = {
    type: 'object',
    properties: {
      start: { type: 'string', description: 'The start of one of the offered slots, exactly as offered.' },
      name: { type: 'string', description: "The lead's full name." },
      email: { type: 'string', description: "The lead's email address." },
    },
    required: ['start', 'name', 'email'],
    additionalProperties: false,
  };

  const availability: ActionTool = {
    spec: {
      name: availabilityName,
      description: `Lists free appointment slots (${config.name}) the lead can book. Times are in ${timeZone}.`,
      parameters: availabilitySchema,
    },
    async execute(args, context) {
      const attempt = deps.recorder?.start(
        {
          name: availabilityName,
          action_type: REAL_TIME_BOOKING_ACTION_TYPE,
          action_id: deps.action_id,
          parameters_hard_coded: hardCoded,
          parameters_schema: availabilitySchema,
        },
        args,
      );
      const range = window(clock.now());
      const earliest = range.startMs;
      let slots: TimeRange[];
      try {
        slots =
          range.endMs > range.startMs ? await deps.calendar.freeSlots(range, { signal: context.signal }) : [];
      } catch (err) {
        const error = `the calendar could not be read: ${err instanceof Error ? err.message : String(err)}`;
        attempt?.fail(error);
        return { result: { ok: false, error } };
      }
      const chosen = slots
        .filter((s) => s.startMs >= earliest && s.startMs < range.endMs)
        .sort((a, b) => a.startMs - b.startMs)
        .slice(0, maxSlots);
      for (const s of chosen) offered.set(s.startMs, s);
      const shown = chosen.map((s) => ({
        start: toZonedIso(s.startMs, timeZone),
        end: toZonedIso(s.endMs, timeZone),
      }));
      attempt?.succeed({ slots: shown });
      return {
        result: shown.length
          ? { ok: true, timezone: timeZone, slots: shown }
          : { ok: true, timezone: timeZone, slots: [], note: 'no free slots in the coming days' },
      };
    },
  };

  const book: ActionTool = {
    spec: {
      name: bookName,
      description: `Books one of the slots offered by ${availabilityName} for the lead.`,
      parameters: bookSchema,
    },
    async execute(args, context) {
      const attempt = deps.recorder?.start(
        {
          name: bookName,
          action_type: REAL_TIME_BOOKING_ACTION_TYPE,
          action_id: deps.action_id,
          parameters_hard_coded: hardCoded,
          parameters_schema: bookSchema,
        },
        args,
      );
      const fail = (error: string) => {
        attempt?.fail(error);
        return { result: { ok: false, error } };
      };
      const { start, name, email } = args;
      if (typeof start !== 'string') return fail('the argument "start" is missing');
      if (typeof name !== 'string' || name.trim() === '') return fail('the argument "name" is missing');
      if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim()))
        return fail('the argument "email" must be an email address');
      const startMs = parseZonedIso(start);
      if (startMs === null) return fail('the argument "start" must be an ISO time with an offset');
      // A slot offered earlier in this tool's life, or, when the tools were rebuilt since (a chat
      // builds them per message), a slot the calendar still shows free within the action's rules.
      let slot = offered.get(startMs);
      if (!slot) {
        const rules = window(clock.now());
        const inRules = startMs >= rules.startMs && startMs < rules.endMs;
        if (inRules) {
          try {
            const free = await deps.calendar.freeSlots(
              { startMs, endMs: startMs + 1 },
              { signal: context.signal },
            );
            slot = free.find((s) => s.startMs === startMs);
          } catch {
            slot = undefined;
          }
        }
      }
      if (!slot) return fail('slot_not_offered');
      if (slot.startMs < clock.now()) return fail('slot_in_past');
      let booked;
      try {
        booked = await deps.calendar.book(
          slot,
          { name: name.trim(), email: email.trim(), timeZone },
          { signal: context.signal },
        );
      } catch (err) {
        return fail(`the calendar could not be reached: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!booked.ok) {
        if (booked.reason === 'slot_taken') offered.delete(startMs);
        return fail(booked.reason);
      }
      offered.delete(startMs);
      const value = {
        booking_id: booked.bookingId,
        start: toZonedIso(slot.startMs, timeZone),
        end: toZonedIso(slot.endMs, timeZone),
      };
      attempt?.succeed(value);
      return { result: { ok: true, ...value } };
    },
  };

  return { availability, book };
}
