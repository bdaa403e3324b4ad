import { describe, expect, it } from 'vitest';
import { createPreroll, createSpeechGate } from './stt-pocketsphinx-gate.ts';

const FRAME = 320;

/** A 20 ms frame of noise of about `rms`, the same on every run. */
function noise(rms: number, seed: number): Int16Array {
  let state = seed;
  return Int16Array.from({ length: FRAME }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return Math.round((state / 2 ** 31 - 0.5) * rms * Math.sqrt(12));
  });
}

/** A 20 ms frame of a 300 Hz tone of `rms`. */
const tone = (rms: number): Int16Array =>
  Int16Array.from({ length: FRAME }, (_, i) =>
    Math.round(rms * Math.SQRT2 * Math.sin((2 * Math.PI * 300 * i) / 16000)),
  );

describe('speech gate', () => {
  it('opens on sound well above silence and the minimum level, not on quiet noise', () => {
    const gate = createSpeechGate({ minRms: 150, overFloor: 3 });
    expect(gate.voiced(new Int16Array(FRAME))).toBe(false);
    expect(gate.voiced(noise(100, 1))).toBe(false);
    expect(gate.voiced(tone(2000))).toBe(true);
  });

  it('stops counting steady noise as speech after a few seconds, but still hears speech over it', () => {
    const gate = createSpeechGate({ minRms: 150, overFloor: 3 });
    const heard = Array.from({ length: 500 }, (_, i) => gate.voiced(noise(800, i + 1)));
    expect(heard.slice(0, 10).every(Boolean)).toBe(true);
    // 800 RMS stops counting once the floor passes 800 / 3: 14.5 dB above the starting floor (50),
    // which rises 4 dB/s, so after about 3.6 s.
    const lastVoiced = heard.lastIndexOf(true);
    expect(lastVoiced * 20).toBeGreaterThan(3000);
    expect(lastVoiced * 20).toBeLessThan(4500);
    expect(gate.voiced(noise(800, 999))).toBe(false);
    expect(gate.voiced(tone(4000))).toBe(true);
  });

  it('drops its floor at once when the line goes quiet', () => {
    const gate = createSpeechGate({ minRms: 150, overFloor: 3 });
    for (let i = 0; i < 500; i += 1) gate.voiced(noise(800, i + 1));
    expect(gate.voiced(tone(1500))).toBe(false);
    gate.voiced(noise(20, 7));
    expect(gate.voiced(tone(1500))).toBe(true);
  });
});

describe('pre-roll', () => {
  it('gives the most recent samples, oldest first, across the ring edge, then is empty', () => {
    const preroll = createPreroll(5);
    preroll.push(Int16Array.of(1, 2, 3));
    expect([...preroll.take()]).toEqual([1, 2, 3]);
    expect([...preroll.take()]).toEqual([]);
    preroll.push(Int16Array.of(4, 5, 6));
    preroll.push(Int16Array.of(7, 8, 9));
    expect([...preroll.take()]).toEqual([5, 6, 7, 8, 9]);
  });

  it('keeps only the tail of a push longer than its capacity', () => {
    const preroll = createPreroll(3);
    preroll.push(Int16Array.of(1));
    preroll.push(Int16Array.of(2, 3, 4, 5, 6));
    expect([...preroll.take()]).toEqual([4, 5, 6]);
  });
});
