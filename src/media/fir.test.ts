import { describe, expect, it } from 'vitest';
import { besselI0, kaiserBeta, kaiserLength, kaiserLowpass } from './fir.ts';

/** |H(f)| of `taps` at `f` (fraction of the sample rate). */
function gainAt(taps: Float64Array, f: number): number {
  let re = 0;
  let im = 0;
  for (let n = 0; n < taps.length; n += 1) {
    re += taps[n]! * Math.cos(2 * Math.PI * f * n);
    im -= taps[n]! * Math.sin(2 * Math.PI * f * n);
  }
  return Math.hypot(re, im);
}

describe('Kaiser low-pass design', () => {
  it('computes I0 and beta as the textbook values', () => {
    expect(besselI0(0)).toBe(1);
    expect(besselI0(1)).toBeCloseTo(1.2660658777520082, 14);
    expect(besselI0(5)).toBeCloseTo(27.239871823604442, 11);
    expect(kaiserBeta(60)).toBeCloseTo(5.65326, 5);
    expect(kaiserBeta(30)).toBeCloseTo(0.5842 * 9 ** 0.4 + 0.07886 * 9, 10);
    expect(kaiserBeta(10)).toBe(0);
  });

  it.each([40, 50, 60])('meets %i dB in the stopband with flat passband and unity DC gain', (db) => {
    const transition = 0.05;
    const taps = kaiserLowpass(kaiserLength(db, transition), 0.25, db);
    expect(gainAt(taps, 0)).toBeCloseTo(1, 12);
    const ripple = 10 ** (-db / 20);
    for (let f = 0; f <= 0.25 - transition / 2; f += 0.001) {
      expect(Math.abs(gainAt(taps, f) - 1)).toBeLessThan(2 * ripple);
    }
    for (let f = 0.25 + transition / 2; f <= 0.5; f += 0.001) {
      expect(20 * Math.log10(gainAt(taps, f))).toBeLessThan(-db + 1);
    }
  });

  it('is symmetric (linear phase) and refuses a cutoff outside (0, 0.5)', () => {
    const taps = kaiserLowpass(31, 0.2, 50);
    for (let n = 0; n < 31; n += 1) expect(taps[n]).toBeCloseTo(taps[30 - n]!, 15);
    expect(() => kaiserLowpass(31, 0.5, 50)).toThrow(RangeError);
    expect(() => kaiserLowpass(31, 0, 50)).toThrow(RangeError);
  });
});
