import { describe, expect, it } from 'vitest';
import {
  firstValidZone,
  isValidTimeZone,
  offsetTransitions,
  wallClockAt,
  weekdayOfDay,
} from './time-zones.ts';

const at = (iso: string) => Date.parse(iso);

describe('wall clock', () => {
  it('reads the local date, weekday, minute and offset of an instant', () => {
    // 2026-01-05 is a Monday; 03:30Z is Sunday 22:30 in New York (UTC-5).
    expect(wallClockAt(at('2026-01-05T03:30:59.999Z'), 'America/New_York')).toEqual({
      day: Date.UTC(2026, 0, 4) / 86_400_000,
      weekday: 0,
      minuteOfDay: 22 * 60 + 30,
      offsetMs: -5 * 3600_000,
    });
    expect(wallClockAt(at('2026-07-01T00:00:00Z'), 'Europe/Paris').offsetMs).toBe(2 * 3600_000);
    expect(weekdayOfDay(0)).toBe(4); // 1970-01-01, a Thursday
    expect(weekdayOfDay(-1)).toBe(3);
  });

  it('finds the DST transitions of a range to the ms, and none where there are none', () => {
    expect(
      offsetTransitions('America/New_York', at('2026-03-01T00:00:00Z'), at('2026-03-15T00:00:00Z')),
    ).toEqual([at('2026-03-08T07:00:00Z')]);
    expect(offsetTransitions('Europe/Paris', at('2026-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'))).toEqual(
      [at('2026-03-29T01:00:00Z'), at('2026-10-25T01:00:00Z')],
    );
    expect(offsetTransitions('UTC', at('2026-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'))).toEqual([]);
  });

  it('checks zones with Intl and falls back to UTC', () => {
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('Not/AZone')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(firstValidZone(undefined, 'Bad/Zone', 'Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(firstValidZone(null, 'Bad/Zone')).toBe('UTC');
  });
});
