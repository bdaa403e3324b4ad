import { describe, expect, it } from 'vitest';
import type { SampleRate } from './frame.ts';
import { Resampler } from './resampler.ts';
import { amplitudeAt, rms, sine, speechLike } from './testing/signals.ts';

const RATES: SampleRate[] = [8000, 16000, 24000, 48000];
const PAIRS = RATES.flatMap((from) => RATES.map((to) => ({ from, to })));

/** Resamples `input` in 20 ms frames, as a call would, and returns everything written. */
function byFrames(resampler: Resampler, input: Int16Array): Int16Array {
  const frame = resampler.from / 50;
  const out = new Int16Array(resampler.maxOutput(input.length));
  const scratch = new Int16Array(resampler.maxOutput(frame));
  let written = 0;
  for (let start = 0; start < input.length; start += frame) {
    const count = resampler.process(input.subarray(start, start + frame), scratch);
    out.set(scratch.subarray(0, count), written);
    written += count;
  }
  return out.subarray(0, written);
}

describe('Resampler', () => {
  it.each(PAIRS)('turns every 20 ms frame at $from Hz into a 20 ms frame at $to Hz', ({ from, to }) => {
    const resampler = new Resampler(from, to);
    const out = new Int16Array(resampler.maxOutput(from / 50));
    expect(out.length).toBe(to / 50);
    for (let i = 0; i < 5; i += 1)
      expect(resampler.process(sine(440, from, from / 50, 8000), out)).toBe(to / 50);
  });

  it.each(PAIRS)('keeps a 1 kHz tone at $from -> $to Hz: frequency, amplitude and phase', ({ from, to }) => {
    const resampler = new Resampler(from, to);
    const out = byFrames(resampler, sine(1000, from, from / 2, 10000));
    // After the filter has filled, the output is the same sine at the new rate, delayed by `delay`.
    const settled = Math.ceil(resampler.delay) * 2 + 10;
    const expected = Float64Array.from(
      { length: out.length },
      (_, n) => 10000 * Math.sin((2 * Math.PI * 1000 * (n - resampler.delay)) / to),
    );
    const error = out.subarray(settled).map((x, n) => x - expected[n + settled]!);
    expect(rms(error)).toBeLessThan(10000 * 10 ** (-45 / 20));
    const amplitude = amplitudeAt(out.subarray(settled, settled + to / 10), 1000, to);
    expect(Math.abs(20 * Math.log10(amplitude / 10000))).toBeLessThan(0.1);
  });

  it.each([
    { from: 16000, to: 8000, tones: [4100, 5000, 6500, 7900] },
    { from: 48000, to: 16000, tones: [8100, 10000, 16000, 23000] },
    { from: 48000, to: 8000, tones: [4100, 12000, 20000] },
    { from: 24000, to: 16000, tones: [8100, 11000] },
  ])(
    'attenuates tones above the new Nyquist frequency by 40 dB or more ($from -> $to)',
    ({ from, to, tones }) => {
      for (const tone of tones) {
        const resampler = new Resampler(from as SampleRate, to as SampleRate);
        const out = byFrames(resampler, sine(tone, from, from / 2, 16000));
        const level = rms(out.subarray(Math.ceil(resampler.delay) * 2));
        expect(20 * Math.log10(level / (16000 / Math.SQRT2)), `${tone} Hz`).toBeLessThan(-40);
      }
    },
  );

  it.each(PAIRS)(
    'gives the same output frame by frame, in odd chunks and whole ($from -> $to)',
    ({ from, to }) => {
      const input = speechLike(from, from / 2);
      const whole = new Resampler(from, to);
      const all = new Int16Array(whole.maxOutput(input.length));
      const count = whole.process(input, all);
      expect(count).toBe(to / 2);
      expect(Array.from(byFrames(new Resampler(from, to), input))).toEqual(Array.from(all));

      const chunked = new Resampler(from, to);
      const pieces: number[] = [];
      const scratch = new Int16Array(chunked.maxOutput(input.length));
      for (let start = 0, size = 1; start < input.length; start += size, size = (size * 7 + 3) % 701) {
        const n = chunked.process(input.subarray(start, start + size), scratch);
        pieces.push(...scratch.subarray(0, n));
      }
      expect(pieces).toEqual(Array.from(all));
    },
  );

  it('keeps a constant level exactly constant (what the data-speech fakes rely on)', () => {
    for (const [from, to] of [
      [16000, 8000],
      [8000, 16000],
      [16000, 48000],
      [24000, 16000],
    ] as const) {
      const resampler = new Resampler(from, to);
      const out = byFrames(resampler, new Int16Array(from / 5).fill(12345));
      expect(new Set(out.subarray(Math.ceil(resampler.delay) * 2))).toEqual(new Set([12345]));
    }
  });

  it('clamps instead of wrapping when ringing overshoots full scale', () => {
    const square = Int16Array.from({ length: 1600 }, (_, n) => (Math.floor(n / 40) % 2 ? -32768 : 32767));
    const resampler = new Resampler(16000, 8000);
    const out = byFrames(resampler, square);
    expect(Math.max(...out)).toBe(32767);
    expect(Math.min(...out)).toBe(-32768);
    // The overshoot next to each edge must stay on the edge's side; a wrap would flip its sign.
    for (let n = Math.ceil(resampler.delay) * 2; n < out.length; n += 1) {
      const t = (n - resampler.delay) * 2; // the input sample this output stands for
      if (Math.abs(t - Math.round(t / 40) * 40) <= 3) continue; // on an edge: any value is right
      expect(Math.sign(out[n]!), `sample ${n}`).toBe(Math.floor(t / 40) % 2 ? -1 : 1);
    }
  });

  it('forgets the history on reset and refuses an output buffer too small', () => {
    const resampler = new Resampler(8000, 16000);
    const input = speechLike(8000, 800);
    const first = byFrames(resampler, input).slice();
    resampler.reset();
    expect(Array.from(byFrames(resampler, input))).toEqual(Array.from(first));
    expect(() => resampler.process(new Int16Array(160), new Int16Array(319))).toThrow(RangeError);
  });

  it('passes samples through unchanged when the rates are equal', () => {
    const resampler = new Resampler(16000, 16000);
    const input = speechLike(16000, 3200);
    expect(Array.from(byFrames(resampler, input))).toEqual(Array.from(input));
    expect(resampler.delay).toBe(0);
  });
});
