// Call time windows of a batch (WIRE.md section 5): the dialer places calls only while the wall
// clock of the window's zone (else the agent's, else UTC) reads inside one of the weekday's
// intervals. Calls already in progress run past the end; that is the caller's business.
//
// Semantics, fixed here:
// - An interval [from, to) is open from `from` inclusive to `to` exclusive, at minute precision:
//   09:00-17:00 is open at 09:00:00.000 and at 16:59:59.999, closed at 17:00:00.000. `to` may be
//   24:00 (to the end of the day). An overnight window is two entries (mon 22:00-24:00 and
//   tue 00:00-06:00), which join without a gap.
// - Duplicate weekday entries are merged: a time is open if any interval of that weekday holds it.
// - DST: open means "the wall clock there reads inside an interval", nothing more.
//   * Spring forward (a gap): wall times in the gap never happen. An interval starting inside the
//     gap opens at the transition instant if it is still running then (02:30-04:00 in New York on
//     the day clocks jump from 02:00 to 03:00 opens at 03:00 EDT); one lying wholly inside the gap
//     (02:00-02:30) does not open that day.
//   * Fall back (an overlap): the repeated wall times are open both times they occur, so an
//     interval inside the repeated hour opens twice, and an interval that the clock re-enters
//     when it is set back reopens at the transition instant.
//   So a window can be open a little longer or shorter than its nominal length on those two days,
//   never outside the wall-clock hours the user wrote (what calling-hours rules are about).

import {
  DAY_MS,
  MINUTE_MS,
  firstValidZone,
  isValidTimeZone,
  offsetMsAt,
  offsetTransitions,
  wallClockAt,
  weekdayOfDay,
} from '../core/index.ts';

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface CallTimeInterval {
  /** 'HH:MM', 00:00 to 23:59, inclusive. */
  from: string;
  /** 'HH:MM', 00:01 to 24:00, exclusive; after `from`. */
  to: string;
}

export interface CallTimeWeekday {
  weekday: Weekday;
  interval: CallTimeInterval[];
}

export interface CallTimeWindow {
  enable: boolean;
  /** IANA zone; absent: the agent's timezone, else UTC. */
  timezone?: string;
  weekly_hours: CallTimeWeekday[];
}

export type CallTimeWindowValidation =
  { ok: true; window: CallTimeWindow } | { ok: false; loc: (string | number)[]; message: string };

export const MAX_WEEKDAY_ENTRIES = 7;
export const MAX_INTERVALS_PER_WEEKDAY = 24;

/** How far ahead nextOpening looks: a week plus room for a DST shift. */
export const NEXT_OPENING_HORIZON_MS = 8 * DAY_MS;

// ---------------------------------------------------------------------------------------------
// Validation

class Invalid extends Error {
  constructor(
    readonly loc: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const HH_MM = /^(\d{2}):(\d{2})$/;

/** Minutes since midnight of 'HH:MM'; 24:00 only when `allowEndOfDay`. Null when malformed. */
function parseHhMm(text: string, allowEndOfDay: boolean): number | null {
  const m = HH_MM.exec(text);
  if (!m) return null;
  const hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (hours === 24 && minutes === 0) return allowEndOfDay ? 24 * 60 : null;
  if (hours > 23 || minutes > 59) return null;
  return hours * 60 + minutes;
}

function readInterval(value: unknown, loc: (string | number)[]): CallTimeInterval {
  if (!isRecord(value)) throw new Invalid(loc, 'must be an object with from and to');
  const { from, to } = value;
  const start = typeof from === 'string' ? parseHhMm(from, false) : null;
  if (typeof from !== 'string' || start === null) {
    throw new Invalid([...loc, 'from'], 'must be a time "HH:MM" from 00:00 to 23:59');
  }
  const end = typeof to === 'string' ? parseHhMm(to, true) : null;
  if (typeof to !== 'string' || end === null) {
    throw new Invalid([...loc, 'to'], 'must be a time "HH:MM" from 00:00 to 24:00');
  }
  if (start >= end) {
    throw new Invalid(loc, `from (${from}) must be before to (${to}); split overnight hours over two days`);
  }
  return { from, to };
}

function readWeekday(value: unknown, loc: (string | number)[]): CallTimeWeekday {
  if (!isRecord(value)) throw new Invalid(loc, 'must be an object with weekday and interval');
  const { weekday, interval } = value;
  if (typeof weekday !== 'string' || !(WEEKDAYS as readonly string[]).includes(weekday)) {
    throw new Invalid([...loc, 'weekday'], `must be one of ${WEEKDAYS.join(', ')}`);
  }
  if (!Array.isArray(interval)) throw new Invalid([...loc, 'interval'], 'must be an array');
  if (interval.length > MAX_INTERVALS_PER_WEEKDAY) {
    throw new Invalid([...loc, 'interval'], `must have at most ${MAX_INTERVALS_PER_WEEKDAY} intervals`);
  }
  return {
    weekday: weekday as Weekday,
    interval: interval.map((item, i) => readInterval(item, [...loc, 'interval', i])),
  };
}

function readWindow(value: unknown): CallTimeWindow {
  if (!isRecord(value)) throw new Invalid([], 'must be an object');
  const { enable, timezone, weekly_hours: weeklyHours } = value;
  if (typeof enable !== 'boolean') throw new Invalid(['enable'], 'is required and must be a boolean');
  // null is read as "not given": JSON clients often send null for an unset optional field.
  if (timezone !== undefined && timezone !== null) {
    if (typeof timezone !== 'string' || !isValidTimeZone(timezone)) {
      throw new Invalid(['timezone'], 'must be an IANA time zone such as "America/New_York"');
    }
  }
  // A disabled window needs no hours; an enabled one must say them (an empty list is allowed and
  // means "never open", which the dialer reports rather than guesses around).
  if (weeklyHours === undefined && !enable) {
    return { enable, ...(typeof timezone === 'string' ? { timezone } : {}), weekly_hours: [] };
  }
  if (!Array.isArray(weeklyHours)) throw new Invalid(['weekly_hours'], 'is required and must be an array');
  if (weeklyHours.length > MAX_WEEKDAY_ENTRIES) {
    throw new Invalid(['weekly_hours'], `must have at most ${MAX_WEEKDAY_ENTRIES} entries`);
  }
  return {
    enable,
    ...(typeof timezone === 'string' ? { timezone } : {}),
    weekly_hours: weeklyHours.map((entry, i) => readWeekday(entry, ['weekly_hours', i])),
  };
}

/**
 * Checks a `call_time_window` from a request. On success returns a clean copy (unknown keys
 * dropped) to store; on failure the field's path relative to `call_time_window` and a message.
 */
export function validateCallTimeWindow(value: unknown): CallTimeWindowValidation {
  try {
    return { ok: true, window: readWindow(value) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, loc: err.loc, message: err.message };
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/** [fromMinute, toMinute) ranges per JS weekday (0 = Sunday), merged across duplicate entries. */
type Week = readonly (readonly [number, number])[][];

// Stored windows were validated on the way in; a malformed interval that still turns up (an old
// row, a hand-edited database) is skipped rather than allowed to open the window wrongly.
function compile(window: CallTimeWindow): Week {
  const week: [number, number][][] = [[], [], [], [], [], [], []];
  for (const entry of window.weekly_hours) {
    const jsDay = (WEEKDAYS.indexOf(entry.weekday) + 1) % 7;
    const ranges = week[jsDay];
    if (!ranges) continue;
    for (const { from, to } of entry.interval) {
      const start = parseHhMm(from, false);
      const end = parseHhMm(to, true);
      if (start !== null && end !== null && start < end) ranges.push([start, end]);
    }
  }
  return week;
}

function zoneOf(window: CallTimeWindow, fallbackTimeZone: string | undefined): string {
  return firstValidZone(window.timezone, fallbackTimeZone);
}

function openIn(week: Week, zone: string, atMs: number): boolean {
  const { weekday, minuteOfDay } = wallClockAt(atMs, zone);
  return (week[weekday] ?? []).some(([from, to]) => from <= minuteOfDay && minuteOfDay < to);
}

const isActive = (window: CallTimeWindow | null | undefined): window is CallTimeWindow =>
  window !== null && window !== undefined && window.enable;

/**
 * Whether the dialer may place a call at `atMs`. No window, or a disabled one, is always open.
 * The zone is the window's, else `fallbackTimeZone` (the agent's), else UTC; an unknown zone
 * falls through to the next.
 */
export function isOpen(
  window: CallTimeWindow | null | undefined,
  atMs: number,
  fallbackTimeZone?: string,
): boolean {
  if (!isActive(window)) return true;
  return openIn(compile(window), zoneOf(window, fallbackTimeZone), atMs);
}

/**
 * The first instant ≥ atMs at which the window is open: atMs itself when open now; null when an
 * enabled window has no intervals, or (defensively) when nothing opens within
 * NEXT_OPENING_HORIZON_MS. DST is handled as described at the top of this file.
 */
export function nextOpening(
  window: CallTimeWindow | null | undefined,
  atMs: number,
  fallbackTimeZone?: string,
): number | null {
  if (!isActive(window)) return atMs;
  const week = compile(window);
  if (week.every((ranges) => ranges.length === 0)) return null;
  const zone = zoneOf(window, fallbackTimeZone);
  if (openIn(week, zone, atMs)) return atMs;
  const horizon = atMs + NEXT_OPENING_HORIZON_MS;
  const opening = openingCandidates(week, zone, atMs, horizon).find((t) => openIn(week, zone, t));
  return opening ?? null;
}

/**
 * Every instant in (atMs, horizon] at which a closed window could become open, ascending. The
 * wall clock moves either continuously, so it enters an interval exactly when it reads `from`,
 * or jumps at an offset transition. Hence the candidates: each time the wall clock reads an
 * interval's `from` (under every offset in force in the range, so both readings of a repeated
 * hour), plus each transition. The first candidate that is open is the answer; candidates that
 * are not real (a `from` under an offset not in force then) are filtered by that same test.
 */
function openingCandidates(week: Week, zone: string, atMs: number, horizon: number): number[] {
  const transitions = offsetTransitions(zone, atMs, horizon);
  const offsets = new Set([offsetMsAt(atMs, zone), ...transitions.map((t) => offsetMsAt(t, zone))]);
  const candidates = [...transitions];
  // One local day either side covers any offset (all are under a day).
  const firstDay = wallClockAt(atMs, zone).day - 1;
  const lastDay = wallClockAt(horizon, zone).day + 1;
  for (let day = firstDay; day <= lastDay; day++) {
    for (const [from] of week[weekdayOfDay(day)] ?? []) {
      const localMs = day * DAY_MS + from * MINUTE_MS;
      for (const offset of offsets) {
        const t = localMs - offset;
        if (t > atMs && t <= horizon) candidates.push(t);
      }
    }
  }
  return candidates.sort((a, b) => a - b);
}
