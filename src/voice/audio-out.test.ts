import { describe, expect, it } from 'vitest';
import type { AudioFrame, SampleRate } from '../media/index.ts';
import { createAudioOut } from './audio-out.ts';
import { toneFrequency } from './beep.ts';

const sine = (hz: number, rate: SampleRate, frame: number, amplitude = 8000): AudioFrame => {
  const n = (rate * 20) / 1000;
  return {
    samples: Int16Array.from({ length: n }, (_, i) =>
      Math.round(amplitude * Math.sin((2 * Math.PI * hz * (frame * n + i)) / rate)),
    ),
    sampleRate: rate,
    at: frame * 20,
  };
};
const rms = (s: Int16Array) => Math.sqrt(s.reduce((sum, v) => sum + v * v, 0) / s.length);

describe('audio out', () => {
  it('passes a frame through untouched at volume 1 with no noise', () => {
    const out = createAudioOut({ volume: 1, noise: null });
    const frame = sine(500, 16000, 0);
    const copy = Int16Array.from(frame.samples);
    expect(out.process(frame)).toBe(frame);
    expect(frame.samples).toEqual(copy);
  });

  it('applies the volume as a gain, clipping at 16 bits', () => {
    const half = createAudioOut({ volume: 0.5, noise: null }).process(sine(500, 16000, 0));
    expect(rms(half.samples)).toBeCloseTo(rms(sine(500, 16000, 0).samples) / 2, -1);
    const loud = createAudioOut({ volume: 2, noise: null }).process(sine(500, 16000, 0, 30000));
    expect(Math.max(...loud.samples)).toBe(32767);
    expect(Math.min(...loud.samples)).toBe(-32768);
  });

  it('pads a short last frame to 20 ms', () => {
    const frame: AudioFrame = { samples: new Int16Array(100).fill(1000), sampleRate: 16000, at: 0 };
    const out = createAudioOut({ volume: 1, noise: null }).process(frame);
    expect(out.samples.length).toBe(320);
    expect(out.samples[99]).toBe(1000);
    expect(out.samples[100]).toBe(0);
  });

  it('resamples 8, 24 and 48 kHz to 20 ms frames at 16 kHz, keeping the pitch and level', () => {
    for (const rate of [8000, 24000, 48000] as const) {
      const out = createAudioOut({ volume: 1, noise: null });
      const frames = Array.from({ length: 10 }, (_, f) => out.process(sine(1000, rate, f)));
      expect(frames.every((f) => f.sampleRate === 16000 && f.samples.length === 320)).toBe(true);
      const steady = frames[5]?.samples ?? new Int16Array();
      expect(toneFrequency(steady, 16000, 300, 0.6)).toBeCloseTo(1000, -1);
      expect(rms(steady)).toBeGreaterThan(8000 * 0.7 * 0.95);
      expect(rms(steady)).toBeLessThan(8000 * 0.7 * 1.05);
    }
  });

  it('removes what 16 kHz cannot carry when downsampling', () => {
    const out = createAudioOut({ volume: 1, noise: null });
    const frames = Array.from({ length: 10 }, (_, f) => out.process(sine(11000, 48000, f)));
    expect(rms(frames[5]?.samples ?? new Int16Array())).toBeLessThan(200);
  });

  it('mixes a background bed at the configured level, the same each time', () => {
    const level = (type: 'cafe' | 'office', volume: number) => {
      const out = createAudioOut({ volume: 1, noise: { type, volume } });
      let sum = 0;
      for (let f = 0; f < 200; f += 1) {
        const s = out.process({ samples: new Int16Array(320), sampleRate: 16000, at: 0 }).samples;
        sum += rms(s) ** 2;
      }
      return Math.sqrt(sum / 200);
    };
    expect(level('office', 100)).toBeGreaterThan(1300);
    expect(level('office', 100)).toBeLessThan(1700);
    expect(level('office', 20)).toBeCloseTo(level('office', 100) / 5, -1);
    expect(level('cafe', 50)).toBeGreaterThan(400);
    expect(level('cafe', 0)).toBe(0);
    expect(level('cafe', 30)).toBe(level('cafe', 30));
  });
});
