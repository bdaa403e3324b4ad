import { describe, expect, it } from 'vitest';
import { normalizeE164, slugOf } from './phone.ts';

describe('normalizeE164', () => {
  it.each([
    ['+14155550100', '+14155550100'],
    ['14155550100', '+14155550100'],
    ['+1 (415) 555-0100', '+14155550100'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+49 30 901820', '+4930901820'],
  ])('normalizes %s', (input, expected) => {
    expect(normalizeE164(input)).toBe(expected);
  });

  it.each(['', 'abc', '+1', '+999 123', '415-555-0100x', '+1415555010012345678', '++14155550100'])(
    'refuses %j',
    (input) => {
      expect(normalizeE164(input)).toBeNull();
    },
  );

  it('slugs drop the plus', () => {
    expect(slugOf('+14155550100')).toBe('14155550100');
  });
});
