import { describe, expect, it } from 'vitest';
import { endReasons, isPlainGoodbye } from './endings.ts';
import { redactPii } from './redact.ts';
import { formatTranscript } from './transcript.ts';
import { fillPlaceholders, systemVariables } from './variables.ts';

describe('fillPlaceholders', () => {
  it('fills known names, empties unknown ones once each, and leaves JSON alone', () => {
    expect(
      fillPlaceholders('Hi {name}, {x}{x} {a.b} {"k":1} { spaced } {n}', { name: 'Ada', 'a.b': 3, n: null }),
    ).toEqual({
      text: 'Hi Ada,  3 {"k":1} { spaced } ',
      unknown: ['x'],
    });
  });
});

describe('systemVariables', () => {
  it('gives date and time in the zone, and UTC for an unknown zone', () => {
    const at = Date.UTC(2026, 0, 1, 23, 30);
    expect(systemVariables(at, 'Asia/Tokyo')).toMatchObject({
      current_date: '2026-01-02',
      current_time: '08:30',
      current_day: 'Friday',
      timezone: 'Asia/Tokyo',
    });
    expect(systemVariables(at, 'Mars/Olympus')).toMatchObject({ current_time: '23:30', timezone: 'UTC' });
  });
});

describe('redactPii', () => {
  it.each([
    ['write to jane.doe+x@mail.example.org today', 'write to [email] today'],
    ['call +44 20 7946 0958 or (415) 555-0199', 'call [phone] or [phone]'],
    ['card 4111-1111-1111-1111', 'card [card]'],
    ['IBAN GB82 WEST 1234 5698 7654 32', 'IBAN [account]'],
    ['account number 0012345678', 'account number [number]'],
    ['I am 42, room 12, year 2026', 'I am 42, room 12, year 2026'],
  ])('%s', (input, expected) => {
    expect(redactPii(input)).toBe(expected);
  });
});

describe('isPlainGoodbye', () => {
  it.each(['bye', 'Bye!', 'goodbye.', 'ok bye', 'thanks, bye!', 'have a nice day', 'bye bye', 'see you'])(
    '%s is a goodbye',
    (t) => {
      expect(isPlainGoodbye(t)).toBe(true);
    },
  );
  it.each(['bye the way, how much?', 'goodbye is not what I want', 'maybe', 'what did you say before bye'])(
    '%s is not',
    (t) => {
      expect(isPlainGoodbye(t)).toBe(false);
    },
  );
});

describe('endReasons', () => {
  it('prefers v2 even when empty, and gives v1 reasons the default closing', () => {
    expect(endReasons({ end_call_reasons: ['x'], end_call_reasons_v2: [] })).toEqual([]);
    expect(endReasons({ end_call_reasons: ['x'] })).toEqual([
      { reason: 'x', closingMode: 'static', closingMessage: 'Thank you for your time. Goodbye!' },
    ]);
    expect(
      endReasons({ end_call_reasons_v2: [{ reason: 'y', closing_message: 'bye' }, { reason: 'z' }] }),
    ).toEqual([
      { reason: 'y', closingMode: 'static', closingMessage: 'bye' },
      { reason: 'z', closingMode: 'none', closingMessage: '' },
    ]);
  });
});

describe('formatTranscript', () => {
  const turns = [
    { speaker: 'agent' as const, text: 'Hi', at: 0 },
    { speaker: 'user' as const, text: 'two\nlines', at: 1 },
  ];
  it('labels voice and chat transcripts as the spec and WIRE.md say, one line per turn', () => {
    expect(formatTranscript(turns, 'voice')).toBe('bot: Hi\nhuman: two lines');
    expect(formatTranscript(turns, 'chat')).toBe('Agent: Hi\nUser: two lines');
  });
});
