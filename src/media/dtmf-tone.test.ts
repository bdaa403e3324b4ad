import { describe, expect, it } from 'vitest';
import { DTMF_HIGH_HZ, DTMF_LOW_HZ, dtmfFrequencies } from './dtmf-digits.ts';
import { dtmfTones } from './dtmf-tone.ts';
import { amplitudeAt } from './testing/signals.ts';

describe('dtmfTones', () => {
  it.each([8000, 16000, 48000] as const)('sounds each key as its two tones, then silence (%i Hz)', (rate) => {
    const samples = dtmfTones('9A', { sampleRate: rate, toneMs: 100, gapMs: 50, amplitude: 5000 });
    const tone = rate / 10;
    const gap = rate / 20;
    expect(samples.length).toBe(2 * (tone + gap));
    for (const [i, digit] of ['9', 'A'].entries()) {
      const start = i * (tone + gap);
      // Away from the 2 ms ramps, each tone is there at full amplitude and no other key tone is.
      const body = samples.subarray(start + rate / 200, start + tone - rate / 200);
      const [low, high] = dtmfFrequencies(digit)!;
      for (const f of [...DTMF_LOW_HZ, ...DTMF_HIGH_HZ]) {
        const expected = f === low || f === high ? 5000 : 0;
        expect(Math.abs(amplitudeAt(body, f, rate) - expected), `${digit} at ${f} Hz`).toBeLessThan(300);
      }
      expect(samples.subarray(start + tone, start + tone + gap).every((x) => x === 0)).toBe(true);
      expect(Math.abs(samples[start]!)).toBeLessThan(50); // the ramp starts from silence
    }
  });

  it('uses 100 ms tones, 100 ms gaps and about -10 dBm0 by default', () => {
    const samples = dtmfTones('1', { sampleRate: 8000 });
    expect(samples.length).toBe(1600);
    expect(amplitudeAt(samples.subarray(40, 760), 697, 8000)).toBeCloseTo(7000, -2);
    expect(Math.max(...samples)).toBeLessThanOrEqual(14000);
  });

  it('refuses keys that do not exist and levels that would clip', () => {
    expect(() => dtmfTones('12E', { sampleRate: 8000 })).toThrow(RangeError);
    expect(() => dtmfTones('1', { sampleRate: 8000, amplitude: 20000 })).toThrow(RangeError);
    expect(() => dtmfTones('1', { sampleRate: 8000, toneMs: 0 })).toThrow(RangeError);
    expect(dtmfTones('', { sampleRate: 8000 }).length).toBe(0);
  });
});
