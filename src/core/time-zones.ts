// Wall-clock time in IANA zones, with Intl only (no tz database of our own): the one set of
// time-zone helpers. Times are ms since the epoch inside; here they become what a clock on the
// wall of a zone shows (the dialer's windows, bookings, transfer hours), ISO 8601 strings with the
// zone's offset (what the model and the API see), and back; and the instants where that mapping
// jumps (DST) are found.

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

// Formatters are costly to build and zones are few; a cap keeps odd spellings ("AMERICA/new_york"
// is accepted by Intl) from growing the cache without bound.
const MAX_CACHED_ZONES = 500;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    // Throws RangeError for a zone Intl does not know; callers validate first.
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_CACHED_ZONES) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether Intl knows the IANA zone (the empty string is none). */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone === '') return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The first zone of the list Intl knows, else UTC: a bad stored zone must not stop the dialer. */
export function firstValidZone(...zones: (string | null | undefined)[]): string {
  for (const zone of zones) if (typeof zone === 'string' && isValidTimeZone(zone)) return zone;
  return 'UTC';
}

/** JS weekday (0 = Sunday) of a local date given as days since 1970-01-01, a Thursday. */
export function weekdayOfDay(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

export interface WallClock {
  /** The local date as days since 1970-01-01 (so dates can be stepped with plain arithmetic). */
  day: number;
  /** 0 = Sunday ... 6 = Saturday, as Date.getUTCDay. */
  weekday: number;
  /** 0 ... 1439. */
  minuteOfDay: number;
  /** Local time minus UTC, in ms, at this instant (east positive). */
  offsetMs: number;
}

/** Local wall time read as if it were UTC, in ms, at second precision (Intl shows no ms). */
function localAsUtc(ms: number, timeZone: string): number {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

export function offsetMsAt(ms: number, timeZone: string): number {
  return localAsUtc(ms, timeZone) - Math.floor(ms / 1000) * 1000;
}

export function wallClockAt(ms: number, timeZone: string): WallClock {
  const local = localAsUtc(ms, timeZone);
  const day = Math.floor(local / DAY_MS);
  return {
    day,
    weekday: weekdayOfDay(day),
    minuteOfDay: Math.floor((local - day * DAY_MS) / MINUTE_MS),
    offsetMs: local - Math.floor(ms / 1000) * 1000,
  };
}

// Offsets are sampled this far apart when looking for transitions. Real zones change offset at
// most a few times a year, never twice within hours, so one change per step is a safe assumption.
const TRANSITION_SAMPLE_MS = 6 * HOUR_MS;

/**
 * The instants in (fromMs, toMs] at which the zone's UTC offset changes (DST starts or ends),
 * each the first ms with the new offset, in ascending order.
 */
export function offsetTransitions(timeZone: string, fromMs: number, toMs: number): number[] {
  const found: number[] = [];
  let lo = fromMs;
  let loOffset = offsetMsAt(lo, timeZone);
  while (lo < toMs) {
    const hi = Math.min(lo + TRANSITION_SAMPLE_MS, toMs);
    const hiOffset = offsetMsAt(hi, timeZone);
    if (hiOffset !== loOffset) found.push(firstWithOffset(timeZone, lo, hi, loOffset));
    lo = hi;
    loOffset = hiOffset;
  }
  return found;
}

/** Bisects (lo, hi] for the first ms whose offset differs from `before` (the offset at lo). */
function firstWithOffset(timeZone: string, lo: number, hi: number, before: number): number {
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (offsetMsAt(mid, timeZone) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday. */
  weekday: number;
}

/** The date and time a clock in the zone shows at `ms` (second precision). */
export function wallTime(ms: number, timeZone: string): WallTime {
  const local = new Date(localAsUtc(ms, timeZone));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    weekday: local.getUTCDay(),
  };
}

/** The zone's offset from UTC at `ms`, in minutes (east positive). */
export function offsetMinutes(ms: number, timeZone: string): number {
  return Math.round(offsetMsAt(ms, timeZone) / MINUTE_MS);
}

/** The instant a wall-clock time in the zone denotes (in a gap: shifted forward). */
export function zonedToMs(
  wall: { year: number; month: number; day: number; hour: number; minute: number },
  timeZone: string,
): number {
  const guess = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  let ms = guess - offsetMinutes(guess, timeZone) * MINUTE_MS;
  ms = guess - offsetMinutes(ms, timeZone) * MINUTE_MS;
  return ms;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** e.g. `2026-01-05T09:00:00-05:00`; an unknown zone reads as UTC. */
export function toZonedIso(ms: number, timeZone: string): string {
  const zone = isValidTimeZone(timeZone) ? timeZone : 'UTC';
  const w = wallTime(ms, zone);
  const off = offsetMinutes(ms, zone);
  const sign = off < 0 ? '-' : '+';
  return (
    `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}` +
    `${sign}${pad(Math.trunc(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`
  );
}

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an ISO time that carries an offset (or Z); null otherwise. */
export function parseZonedIso(text: string): number | null {
  if (!ISO_WITH_ZONE.test(text.trim())) return null;
  const ms = Date.parse(text.trim());
  return Number.isFinite(ms) ? ms : null;
}
