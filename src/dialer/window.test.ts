import { describe, expect, it } from 'vitest';
import { isOpen, nextOpening, validateCallTimeWindow, type CallTimeWindow, type Weekday } from './window.ts';

const at = (iso: string) => Date.parse(iso);
const MINUTE = 60_000;

const weekdays: Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

/** Monday to Friday 09:00-17:00 in `timezone`. */
function officeHours(timezone?: string): CallTimeWindow {
  return {
    enable: true,
    ...(timezone ? { timezone } : {}),
    weekly_hours: weekdays.map((weekday) => ({ weekday, interval: [{ from: '09:00', to: '17:00' }] })),
  };
}

function sundayOnly(from: string, to: string, timezone: string): CallTimeWindow {
  return { enable: true, timezone, weekly_hours: [{ weekday: 'sunday', interval: [{ from, to }] }] };
}

describe('validateCallTimeWindow', () => {
  it('accepts a full window and returns a clean copy without unknown keys', () => {
    const result = validateCallTimeWindow({
      enable: true,
      timezone: 'Europe/Paris',
      extra: 1,
      weekly_hours: [{ weekday: 'monday', note: 'x', interval: [{ from: '09:00', to: '24:00', y: 2 }] }],
    });
    expect(result).toEqual({
      ok: true,
      window: {
        enable: true,
        timezone: 'Europe/Paris',
        weekly_hours: [{ weekday: 'monday', interval: [{ from: '09:00', to: '24:00' }] }],
      },
    });
  });

  it('accepts duplicate weekdays, an absent or null timezone, and a disabled window without hours', () => {
    const dup = validateCallTimeWindow({
      enable: true,
      weekly_hours: [
        { weekday: 'friday', interval: [{ from: '09:00', to: '10:00' }] },
        { weekday: 'friday', interval: [{ from: '14:00', to: '15:00' }] },
      ],
    });
    expect(dup.ok).toBe(true);
    expect(validateCallTimeWindow({ enable: true, timezone: null, weekly_hours: [] })).toEqual({
      ok: true,
      window: { enable: true, weekly_hours: [] },
    });
    expect(validateCallTimeWindow({ enable: false })).toEqual({
      ok: true,
      window: { enable: false, weekly_hours: [] },
    });
  });

  const rejects: [string, unknown, (string | number)[]][] = [
    ['not an object', [], []],
    ['enable missing', { weekly_hours: [] }, ['enable']],
    ['enable not boolean', { enable: 'yes', weekly_hours: [] }, ['enable']],
    ['unknown zone', { enable: true, timezone: 'Mars/Olympus', weekly_hours: [] }, ['timezone']],
    ['empty zone', { enable: true, timezone: '', weekly_hours: [] }, ['timezone']],
    ['zone not a string', { enable: true, timezone: 5, weekly_hours: [] }, ['timezone']],
    ['hours missing when enabled', { enable: true }, ['weekly_hours']],
    ['hours not an array', { enable: true, weekly_hours: {} }, ['weekly_hours']],
    [
      'eight weekday entries',
      { enable: true, weekly_hours: Array.from({ length: 8 }, () => ({ weekday: 'monday', interval: [] })) },
      ['weekly_hours'],
    ],
    ['entry not an object', { enable: true, weekly_hours: ['monday'] }, ['weekly_hours', 0]],
    [
      'capitalized weekday',
      { enable: true, weekly_hours: [{ weekday: 'Monday', interval: [] }] },
      ['weekly_hours', 0, 'weekday'],
    ],
    [
      'interval not an array',
      { enable: true, weekly_hours: [{ weekday: 'monday', interval: { from: '09:00', to: '10:00' } }] },
      ['weekly_hours', 0, 'interval'],
    ],
    [
      '25 intervals',
      {
        enable: true,
        weekly_hours: [
          {
            weekday: 'monday',
            interval: Array.from({ length: 25 }, () => ({ from: '09:00', to: '10:00' })),
          },
        ],
      },
      ['weekly_hours', 0, 'interval'],
    ],
  ];
  it.each(rejects)('rejects %s, naming the field', (_name, value, loc) => {
    const result = validateCallTimeWindow(value);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.loc).toEqual(loc);
      expect(result.message).not.toBe('');
    }
  });

  /** The third weekday entry's first interval set to {from, to}, the others valid. */
  function withInterval(from: unknown, to: unknown) {
    return {
      enable: true,
      weekly_hours: [
        { weekday: 'monday', interval: [{ from: '09:00', to: '10:00' }] },
        { weekday: 'tuesday', interval: [] },
        { weekday: 'wednesday', interval: [{ from, to }] },
      ],
    };
  }
  const loc = ['weekly_hours', 2, 'interval', 0];

  it.each([
    ['9:00', '10:00', 'from'],
    ['24:00', '24:00', 'from'],
    ['23:60', '24:00', 'from'],
    ['ab:cd', '10:00', 'from'],
    [900, '10:00', 'from'],
    [undefined, '10:00', 'from'],
    ['09:00', '24:01', 'to'],
    ['09:00', '25:00', 'to'],
    ['09:00', '10:0', 'to'],
    ['09:00', null, 'to'],
  ])('rejects from %j to %j at the %s field', (from, to, field) => {
    expect(validateCallTimeWindow(withInterval(from, to))).toMatchObject({ ok: false, loc: [...loc, field] });
  });

  it('rejects from after or equal to to at the interval, and accepts the edges 00:00 and 24:00', () => {
    expect(validateCallTimeWindow(withInterval('18:00', '09:00'))).toMatchObject({ ok: false, loc });
    expect(validateCallTimeWindow(withInterval('09:00', '09:00'))).toMatchObject({ ok: false, loc });
    expect(validateCallTimeWindow(withInterval('00:00', '24:00')).ok).toBe(true);
    expect(validateCallTimeWindow(withInterval('23:59', '24:00')).ok).toBe(true);
    expect(validateCallTimeWindow(withInterval('00:00', '00:01')).ok).toBe(true);
  });

  it('accepts exactly 7 entries of 24 intervals', () => {
    const full = {
      enable: true,
      weekly_hours: weekdays.concat(['saturday', 'sunday']).map((weekday) => ({
        weekday,
        interval: Array.from({ length: 24 }, (_, h) => ({
          from: `${String(h).padStart(2, '0')}:00`,
          to: `${String(h).padStart(2, '0')}:30`,
        })),
      })),
    };
    expect(validateCallTimeWindow(full).ok).toBe(true);
  });
});

describe('isOpen', () => {
  it('is always open without a window or with a disabled one', () => {
    const t = at('2026-01-04T03:00:00Z'); // a Sunday night
    expect(isOpen(undefined, t, 'UTC')).toBe(true);
    expect(isOpen(null, t)).toBe(true);
    expect(isOpen({ ...officeHours('UTC'), enable: false }, t)).toBe(true);
    expect(isOpen({ enable: false, weekly_hours: [] }, t)).toBe(true);
  });

  it('is never open with an enabled window without intervals', () => {
    const window: CallTimeWindow = { enable: true, weekly_hours: [{ weekday: 'monday', interval: [] }] };
    for (let h = 0; h < 7 * 24; h += 5)
      expect(isOpen(window, at('2026-01-05T00:00:00Z') + h * 3600_000)).toBe(false);
  });

  it('opens at `from` inclusive and closes at `to` exclusive, to the ms', () => {
    const w = officeHours('America/New_York');
    // Monday 2026-01-05, EST = UTC-5: 09:00 local is 14:00Z, 17:00 local is 22:00Z.
    expect(isOpen(w, at('2026-01-05T14:00:00Z') - 1)).toBe(false);
    expect(isOpen(w, at('2026-01-05T14:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-01-05T22:00:00Z') - 1)).toBe(true);
    expect(isOpen(w, at('2026-01-05T22:00:00Z'))).toBe(false);
  });

  it('stays closed across a weekend with no hours', () => {
    const w = officeHours('America/New_York');
    // Friday 2026-01-09 17:00 EST (22:00Z) to Monday 2026-01-12 09:00 EST (14:00Z).
    const start = at('2026-01-09T22:00:00Z');
    const end = at('2026-01-12T14:00:00Z');
    for (let t = start; t < end; t += 7 * MINUTE) expect(isOpen(w, t)).toBe(false);
    expect(isOpen(w, end - 1)).toBe(false);
    expect(isOpen(w, end)).toBe(true);
  });

  it("uses the window's zone, else the fallback zone, else UTC", () => {
    const monday9Utc = at('2026-01-05T09:00:00Z');
    expect(isOpen(officeHours(), monday9Utc)).toBe(true);
    expect(isOpen(officeHours(), monday9Utc, 'UTC')).toBe(true);
    // 09:00Z is 04:00 in New York: closed under the agent's zone...
    expect(isOpen(officeHours(), monday9Utc, 'America/New_York')).toBe(false);
    // ...but the window's own zone wins over the agent's.
    expect(isOpen(officeHours('Europe/London'), monday9Utc, 'America/New_York')).toBe(true);
    // An unknown fallback (a bad stored agent zone) falls through to UTC rather than throwing.
    expect(isOpen(officeHours(), monday9Utc, 'Not/AZone')).toBe(true);
  });

  it('reads the weekday in the zone, not in UTC', () => {
    // Monday 2026-01-05 23:30 in Tokyo is Monday 14:30Z; Saturday 2026-01-10 01:00 in Tokyo is
    // Friday 16:00Z, a UTC weekday but a Tokyo weekend.
    const w: CallTimeWindow = {
      enable: true,
      timezone: 'Asia/Tokyo',
      weekly_hours: weekdays.map((weekday) => ({ weekday, interval: [{ from: '00:00', to: '24:00' }] })),
    };
    expect(isOpen(w, at('2026-01-05T14:30:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-01-09T15:00:00Z') - 1)).toBe(true); // Friday 23:59:59.999 Tokyo
    expect(isOpen(w, at('2026-01-09T15:00:00Z'))).toBe(false); // Saturday 00:00 Tokyo
    expect(isOpen(w, at('2026-01-09T16:00:00Z'))).toBe(false);
  });

  it('merges duplicate weekday entries and joins overnight hours split over two days', () => {
    const w: CallTimeWindow = {
      enable: true,
      timezone: 'UTC',
      weekly_hours: [
        { weekday: 'monday', interval: [{ from: '09:00', to: '10:00' }] },
        { weekday: 'monday', interval: [{ from: '22:00', to: '24:00' }] },
        { weekday: 'tuesday', interval: [{ from: '00:00', to: '02:00' }] },
      ],
    };
    expect(isOpen(w, at('2026-01-05T09:30:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-01-05T12:00:00Z'))).toBe(false);
    expect(isOpen(w, at('2026-01-05T22:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-01-06T00:00:00Z') - 1)).toBe(true);
    expect(isOpen(w, at('2026-01-06T00:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-01-06T02:00:00Z'))).toBe(false);
    expect(nextOpening(w, at('2026-01-05T23:00:00Z'))).toBe(at('2026-01-05T23:00:00Z'));
  });

  it('follows the wall clock across DST: 09:00 New York is 14:00Z in winter, 13:00Z in summer', () => {
    const w = officeHours('America/New_York');
    // Monday 2026-03-02 (EST) and Monday 2026-03-09 (EDT, the day after clocks went forward).
    expect(isOpen(w, at('2026-03-02T13:30:00Z'))).toBe(false);
    expect(isOpen(w, at('2026-03-02T14:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-03-09T13:00:00Z') - 1)).toBe(false);
    expect(isOpen(w, at('2026-03-09T13:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-03-09T21:00:00Z'))).toBe(false); // 17:00 EDT
    // Monday 2026-11-02, back on EST.
    expect(isOpen(w, at('2026-11-02T13:30:00Z'))).toBe(false);
    expect(isOpen(w, at('2026-11-02T14:00:00Z'))).toBe(true);
  });

  it('follows the wall clock across DST in Paris', () => {
    const w = officeHours('Europe/Paris');
    // Friday 2026-03-27 CET (UTC+1) and Monday 2026-03-30 CEST (UTC+2).
    expect(isOpen(w, at('2026-03-27T08:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-03-27T08:00:00Z') - 1)).toBe(false);
    expect(isOpen(w, at('2026-03-30T07:00:00Z'))).toBe(true);
    expect(isOpen(w, at('2026-03-30T07:00:00Z') - 1)).toBe(false);
    expect(isOpen(w, at('2026-03-30T15:00:00Z'))).toBe(false); // 17:00 CEST
  });
});

describe('nextOpening', () => {
  it('is atMs for no window, a disabled window, or an open one; null without intervals', () => {
    const t = at('2026-01-05T15:00:00Z');
    expect(nextOpening(undefined, t)).toBe(t);
    expect(nextOpening({ enable: false, weekly_hours: [] }, t)).toBe(t);
    expect(nextOpening(officeHours('UTC'), t)).toBe(t);
    expect(nextOpening({ enable: true, weekly_hours: [] }, t)).toBeNull();
    expect(nextOpening({ enable: true, weekly_hours: [{ weekday: 'friday', interval: [] }] }, t)).toBeNull();
  });

  it('from Friday at closing time is Monday 09:00 to the ms', () => {
    const w = officeHours('America/New_York');
    expect(nextOpening(w, at('2026-01-09T22:00:00Z'))).toBe(at('2026-01-12T14:00:00Z'));
    expect(nextOpening(w, at('2026-01-12T14:00:00Z') - 1)).toBe(at('2026-01-12T14:00:00Z'));
    // From a Saturday afternoon, in another zone via the fallback.
    expect(nextOpening(officeHours(), at('2026-01-10T12:34:56.789Z'), 'Europe/Paris')).toBe(
      at('2026-01-12T08:00:00Z'),
    );
  });

  it('finds a weekly interval almost a week ahead', () => {
    const w = sundayOnly('10:00', '11:00', 'Europe/Paris');
    // Just after it closes on Sunday 2026-01-04 (CET): next Sunday 10:00 CET = 09:00Z.
    expect(nextOpening(w, at('2026-01-04T10:00:00Z'))).toBe(at('2026-01-11T09:00:00Z'));
  });

  it('lands on the post-DST wall time when the next opening is after a transition', () => {
    // Friday 2026-03-06 after closing (EST); Monday 2026-03-09 09:00 is EDT = 13:00Z.
    expect(nextOpening(officeHours('America/New_York'), at('2026-03-06T22:00:00Z'))).toBe(
      at('2026-03-09T13:00:00Z'),
    );
    // Friday 2026-10-30 after closing (EDT); Monday 2026-11-02 09:00 is EST = 14:00Z.
    expect(nextOpening(officeHours('America/New_York'), at('2026-10-30T21:00:00Z'))).toBe(
      at('2026-11-02T14:00:00Z'),
    );
    // Paris: Friday 2026-10-23 after closing (CEST); Monday 2026-10-26 09:00 CET = 08:00Z.
    expect(nextOpening(officeHours('Europe/Paris'), at('2026-10-23T15:00:00Z'))).toBe(
      at('2026-10-26T08:00:00Z'),
    );
  });

  describe('spring forward (New York 2026-03-08 02:00 EST -> 03:00 EDT at 07:00Z)', () => {
    const transition = at('2026-03-08T07:00:00Z');

    it('an interval starting in the gap opens at the transition', () => {
      const w = sundayOnly('02:30', '04:00', 'America/New_York');
      expect(isOpen(w, transition - 1)).toBe(false); // 01:59:59.999 EST
      expect(isOpen(w, transition)).toBe(true); // 03:00 EDT
      expect(nextOpening(w, at('2026-03-08T05:00:00Z'))).toBe(transition);
      expect(isOpen(w, at('2026-03-08T08:00:00Z'))).toBe(false); // 04:00 EDT
    });

    it('an interval wholly inside the gap does not open that day', () => {
      const w = sundayOnly('02:00', '02:30', 'America/New_York');
      for (let t = at('2026-03-08T05:00:00Z'); t < at('2026-03-08T10:00:00Z'); t += MINUTE) {
        expect(isOpen(w, t)).toBe(false);
      }
      // Next Sunday 02:00 EDT = 06:00Z.
      expect(nextOpening(w, at('2026-03-08T05:00:00Z'))).toBe(at('2026-03-15T06:00:00Z'));
    });

    it('an interval spanning the gap stays open across it', () => {
      const w = sundayOnly('01:00', '05:00', 'America/New_York');
      expect(nextOpening(w, at('2026-03-08T05:00:00Z'))).toBe(at('2026-03-08T06:00:00Z')); // 01:00 EST
      expect(isOpen(w, transition - 1)).toBe(true);
      expect(isOpen(w, transition)).toBe(true);
      expect(isOpen(w, at('2026-03-08T09:00:00Z'))).toBe(false); // 05:00 EDT
    });
  });

  describe('fall back (New York 2026-11-01 02:00 EDT -> 01:00 EST at 06:00Z)', () => {
    const transition = at('2026-11-01T06:00:00Z');

    it('an interval inside the repeated hour opens both times', () => {
      const w = sundayOnly('01:00', '01:30', 'America/New_York');
      expect(nextOpening(w, at('2026-11-01T04:00:00Z'))).toBe(at('2026-11-01T05:00:00Z')); // 01:00 EDT
      expect(isOpen(w, at('2026-11-01T05:30:00Z') - 1)).toBe(true);
      expect(isOpen(w, at('2026-11-01T05:30:00Z'))).toBe(false);
      expect(nextOpening(w, at('2026-11-01T05:30:00Z'))).toBe(transition); // 01:00 EST
      expect(isOpen(w, at('2026-11-01T06:30:00Z'))).toBe(false);
      expect(nextOpening(w, at('2026-11-01T06:30:00Z'))).toBe(at('2026-11-08T06:00:00Z'));
    });

    it('an interval the clock re-enters when set back reopens at the transition', () => {
      const w = sundayOnly('00:30', '01:15', 'America/New_York');
      expect(nextOpening(w, at('2026-11-01T04:00:00Z'))).toBe(at('2026-11-01T04:30:00Z')); // 00:30 EDT
      expect(isOpen(w, at('2026-11-01T05:15:00Z'))).toBe(false); // 01:15 EDT
      expect(nextOpening(w, at('2026-11-01T05:15:00Z'))).toBe(transition); // back to 01:00 EST
      expect(isOpen(w, at('2026-11-01T06:15:00Z'))).toBe(false); // 01:15 EST
    });
  });

  describe('Paris (2026-03-29 02:00 CET -> 03:00 CEST and 2026-10-25 03:00 CEST -> 02:00 CET, both at 01:00Z)', () => {
    it('an interval starting in the spring gap opens at the transition', () => {
      const w = sundayOnly('02:30', '03:30', 'Europe/Paris');
      expect(nextOpening(w, at('2026-03-29T00:00:00Z'))).toBe(at('2026-03-29T01:00:00Z'));
      expect(isOpen(w, at('2026-03-29T01:30:00Z'))).toBe(false); // 03:30 CEST
    });

    it('an interval inside the repeated autumn hour opens both times', () => {
      const w = sundayOnly('02:00', '02:30', 'Europe/Paris');
      expect(nextOpening(w, at('2026-10-24T23:00:00Z'))).toBe(at('2026-10-25T00:00:00Z')); // 02:00 CEST
      expect(nextOpening(w, at('2026-10-25T00:30:00Z'))).toBe(at('2026-10-25T01:00:00Z')); // 02:00 CET
      expect(isOpen(w, at('2026-10-25T01:30:00Z'))).toBe(false);
    });
  });

  it('agrees with a minute-by-minute scan around both New York transitions', () => {
    // Tricky hours every day, so the scans stay short; minute-aligned probes because every
    // opening (an interval's `from` or a transition) falls on a whole minute here.
    const w: CallTimeWindow = {
      enable: true,
      timezone: 'America/New_York',
      weekly_hours: (['saturday', 'sunday', 'monday'] as Weekday[]).map((weekday) => ({
        weekday,
        interval: [
          { from: '00:30', to: '01:15' },
          { from: '01:40', to: '02:20' },
          { from: '02:40', to: '03:10' },
          { from: '09:00', to: '09:01' },
        ],
      })),
    };
    const scan = (from: number): number | null => {
      for (let t = Math.ceil(from / MINUTE) * MINUTE; t < from + 8 * 24 * 60 * MINUTE; t += MINUTE) {
        if (isOpen(w, t)) return t;
      }
      return null;
    };
    for (const start of ['2026-03-07T12:00:00Z', '2026-10-31T12:00:00Z']) {
      for (let t = at(start); t < at(start) + 36 * 3600_000; t += 47 * MINUTE + 13_000) {
        const expected = isOpen(w, t) ? t : scan(t);
        expect(nextOpening(w, t)).toBe(expected);
      }
    }
  });
});
