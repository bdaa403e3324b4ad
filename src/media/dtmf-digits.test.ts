import { describe, expect, it } from 'vitest';
import { DTMF_DIGITS, dtmfDigitOf, dtmfEventCode, dtmfFrequencies, dtmfKeyAt } from './dtmf-digits.ts';

describe('DTMF keys', () => {
  it('numbers the keys as RFC 4733 does and maps back', () => {
    expect(dtmfEventCode('0')).toBe(0);
    expect(dtmfEventCode('9')).toBe(9);
    expect(dtmfEventCode('*')).toBe(10);
    expect(dtmfEventCode('#')).toBe(11);
    expect(dtmfEventCode('A')).toBe(12);
    expect(dtmfEventCode('d')).toBe(15);
    for (const bad of ['', 'E', '12', ' ', '+']) expect(dtmfEventCode(bad)).toBe(-1);
    for (let code = 0; code < 16; code += 1) expect(dtmfEventCode(dtmfDigitOf(code)!)).toBe(code);
    for (const bad of [16, -1, 1.5, 255]) expect(dtmfDigitOf(bad)).toBeNull();
  });

  it('gives each key its row and column tones (ITU-T Q.23)', () => {
    expect(dtmfFrequencies('1')).toEqual([697, 1209]);
    expect(dtmfFrequencies('5')).toEqual([770, 1336]);
    expect(dtmfFrequencies('9')).toEqual([852, 1477]);
    expect(dtmfFrequencies('0')).toEqual([941, 1336]);
    expect(dtmfFrequencies('*')).toEqual([941, 1209]);
    expect(dtmfFrequencies('#')).toEqual([941, 1477]);
    expect(dtmfFrequencies('D')).toEqual([941, 1633]);
    expect(dtmfFrequencies('b')).toEqual([770, 1633]);
    expect(dtmfFrequencies('X')).toBeNull();
    expect(dtmfFrequencies('')).toBeNull();
    const pairs = new Set([...DTMF_DIGITS].map((d) => dtmfFrequencies(d)!.join()));
    expect(pairs.size).toBe(16);
    expect(dtmfKeyAt(3, 1)).toBe('0');
    expect(() => dtmfKeyAt(4, 0)).toThrow(RangeError);
  });
});
