import { describe, expect, it } from 'vitest';
import { CALL_STATUSES, FINAL_STATUSES, canMove, defaultEndReason, isFinal, movesInto } from './status.ts';

describe('call status moves', () => {
  const allowed: [string, string][] = [
    ['pending', 'ringing'],
    ['pending', 'canceled'],
    ['pending', 'failed'],
    ['ringing', 'in-progress'],
    ['ringing', 'no-answer'],
    ['ringing', 'busy'],
    ['ringing', 'failed'],
    ['ringing', 'canceled'],
    ['ringing', 'hangup_on_voicemail'],
    ['in-progress', 'completed'],
    ['in-progress', 'left_voicemail'],
    ['in-progress', 'hangup_on_voicemail'],
    ['in-progress', 'failed'],
    ['in-progress', 'user-canceled'],
    ['in-progress', 'spam'],
    ['registered', 'paused'],
    ['registered', 'in-progress'],
    ['registered', 'canceled'],
    ['registered', 'failed'],
    ['registered', 'busy'],
    ['paused', 'registered'],
    ['paused', 'in-progress'],
    ['paused', 'canceled'],
    ['paused', 'failed'],
  ];

  it('allows exactly the listed moves and refuses every other pair', () => {
    const key = (a: string, b: string) => `${a}->${b}`;
    const allowedKeys = new Set(allowed.map(([a, b]) => key(a, b)));
    for (const from of CALL_STATUSES) {
      for (const to of CALL_STATUSES) {
        expect(canMove(from, to), key(from, to)).toBe(allowedKeys.has(key(from, to)));
      }
    }
    expect(canMove('pending', 'nonsense')).toBe(false);
    expect(canMove('nonsense', 'ringing')).toBe(false);
  });

  it('final statuses have no way out; the others are not final', () => {
    for (const s of CALL_STATUSES) {
      expect(isFinal(s)).toBe(FINAL_STATUSES.includes(s));
      if (isFinal(s)) for (const to of CALL_STATUSES) expect(canMove(s, to)).toBe(false);
    }
  });

  it('lists where a move may come from, and the default end reason of each final status', () => {
    expect(movesInto('in-progress').sort()).toEqual(['paused', 'registered', 'ringing']);
    expect(movesInto('completed')).toEqual(['in-progress']);
    expect(defaultEndReason('hangup_on_voicemail')).toBe('voicemail');
    expect(defaultEndReason('left_voicemail')).toBe('voicemail_message_left');
    expect(defaultEndReason('user-canceled')).toBe('user_canceled');
    expect(defaultEndReason('no-answer')).toBe('undefined');
  });
});
