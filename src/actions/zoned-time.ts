// Wall-clock time in IANA zones with Intl only: times are milliseconds internally and ISO 8601
// strings with the zone's offset at the edges (what the model sees and sends).

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

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

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

export function wallTime(ms: number, timeZone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  };
}

/** The zone's offset from UTC at `ms`, in minutes (east positive). */
export function offsetMinutes(ms: number, timeZone: string): number {
  const w = wallTime(ms, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** The instant a wall-clock time in the zone denotes (in a gap: shifted forward). */
export function zonedToMs(
  wall: { year: number; month: number; day: number; hour: number; minute: number },
  timeZone: string,
): number {
  const guess = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  let ms = guess - offsetMinutes(guess, timeZone) * 60_000;
  ms = guess - offsetMinutes(ms, timeZone) * 60_000;
  return ms;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** e.g. `2026-01-05T09:00:00-05:00`. */
export function toZonedIso(ms: number, timeZone: string): string {
  const w = wallTime(ms, timeZone);
  const off = offsetMinutes(ms, timeZone);
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
