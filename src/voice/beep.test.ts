import { describe, expect, it } from 'vitest';
import { SESSION_RATE, dataSpeechFrames, type AudioFrame } from '../media/index.ts';
import { createBeepDetector, toneFrequency } from './beep.ts';
import { toneFrames } from './testing/index.ts';

// Frames of a signal: f(i) is the sample at absolute index i.
function frames(count: number, f: (i: number) => number): AudioFrame[] {
  return Array.from({ length: count }, (_, n) => ({
    samples: Int16Array.from({ length: 320 }, (_, i) => Math.round(f(n * 320 + i))),
    sampleRate: SESSION_RATE,
    at: n * 20,
  }));
}

function run(input: AudioFrame[]) {
  const detector = createBeepDetector();
  return input.map((frame) => detector.push(frame));
}

describe('beep detector', () => {
  it('reads the frequency of a clean tone', () => {
    for (const hz of [440, 1000, 1400, 1900]) {
      const [frame] = toneFrames(hz, 20);
      expect(toneFrequency(frame?.samples ?? new Int16Array(), SESSION_RATE, 300, 0.6)).toBeCloseTo(hz, -1);
    }
  });

  it('reports a steady tone once it lasted 150 ms, and its end', () => {
    const events = run([...toneFrames(1000, 300), ...frames(3, () => 0)]);
    expect(events.indexOf('beep')).toBe(7); // the 8th frame: 160 ms
    expect(events.filter((e) => e === 'beep')).toHaveLength(1);
    expect(events.indexOf('end')).toBe(15);
  });

  it('ignores short tones, tones out of band, silence and quiet tones', () => {
    expect(run(toneFrames(1000, 120))).not.toContain('beep');
    expect(run(toneFrames(300, 400))).not.toContain('beep');
    expect(run(toneFrames(2500, 400))).not.toContain('beep');
    expect(run(toneFrames(1000, 400, 200))).not.toContain('beep');
    expect(run(frames(20, () => 0))).not.toContain('beep');
  });

  it('ignores a tone whose pitch moves (a sweep) and noise', () => {
    const sweep = frames(20, (i) => 8000 * Math.sin((2 * Math.PI * (500 * i + (i * i) / 20)) / SESSION_RATE));
    expect(run(sweep)).not.toContain('beep');
    let seed = 7;
    const noise = frames(20, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed / 2147483648 - 0.5) * 16000;
    });
    expect(run(noise)).not.toContain('beep');
  });

  it('ignores speech-like audio: data speech and a vowel with harmonics', () => {
    expect(run(dataSpeechFrames('Please leave a message after the tone'))).not.toContain('beep');
    const vowel = frames(20, (i) => {
      const t = i / SESSION_RATE;
      return (
        4000 * Math.sin(2 * Math.PI * 150 * t) +
        3000 * Math.sin(2 * Math.PI * 450 * t) +
        2500 * Math.sin(2 * Math.PI * 750 * t)
      );
    });
    expect(run(vowel)).not.toContain('beep');
  });
});
