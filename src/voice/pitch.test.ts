import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { SampleRate } from '../media/index.ts';
import { espeakClip, resampleWithSox, testAudioDir } from '../providers/testing/index.ts';
import { createPitchTracker, type Contour } from './pitch.ts';

// The caller's pitch (pitch.ts): tones of known frequency, and espeak-ng, whose pitch falls at a
// statement's end and stays level where the sentence goes on after a pause.

const dir = testAudioDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A voice-like tone (a fundamental and two harmonics) whose frequency follows `hzAt(ms)`. */
function tone(ms: number, hzAt: (ms: number) => number, rate: SampleRate = 16000): Int16Array {
  const out = new Int16Array((ms * rate) / 1000);
  let phase = 0;
  for (let i = 0; i < out.length; i += 1) {
    phase += (2 * Math.PI * hzAt((i * 1000) / rate)) / rate;
    out[i] = Math.round(6000 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase)));
  }
  return out;
}

function track(samples: Int16Array, rate: SampleRate) {
  const tracker = createPitchTracker();
  const n = rate / 50;
  const hz: number[] = [];
  for (let i = 0; i + n <= samples.length; i += n) {
    tracker.frame({ samples: samples.subarray(i, i + n), sampleRate: rate, at: (i * 1000) / rate });
    hz.push(tracker.currentHz());
  }
  return { contour: tracker.contour(), hz };
}

describe('pitch tracker', () => {
  it.each([8000, 16000, 48000] as const)('measures a tone within 2%% at %i Hz', (rate) => {
    for (const f of [90, 150, 240]) {
      const { hz } = track(
        tone(400, () => f, rate),
        rate,
      );
      for (const h of hz.slice(2)) expect(Math.abs(h - f) / f, `${f} Hz`).toBeLessThan(0.02);
    }
  });

  it('reads nothing in silence or in too little voicing', () => {
    expect(track(new Int16Array(16000), 16000)).toEqual({ contour: 'unknown', hz: Array(50).fill(0) });
    expect(
      track(
        tone(160, () => 150),
        16000,
      ).contour,
    ).toBe('unknown');
  });

  it('tells a final fall from a level end', () => {
    const level = track(
      tone(1200, () => 180),
      16000,
    );
    // The last 200 ms glide down by about 5 semitones.
    const falling = track(
      tone(1200, (t) => (t < 1000 ? 180 : 180 - (t - 1000) * 0.25)),
      16000,
    );
    // A slow decline over the whole line (declination) is not a final fall.
    const declining = track(
      tone(1200, (t) => 190 - t * 0.015),
      16000,
    );
    expect([level.contour, falling.contour, declining.contour]).toEqual<Contour[]>([
      'level',
      'fall',
      'level',
    ]);
  });

  it('hears espeak-ng fall at the end of statements and stay level at a pause inside them, at 16 and 8 kHz', () => {
    const statements = [
      'I was charged twice for the same order.',
      'I would like to book a table for four people.',
      'Please schedule the visit for the morning.',
    ];
    const contours = (samples: Int16Array) => {
      const narrow = resampleWithSox(dir, 'narrow', samples, 8000);
      return [track(samples, 16000).contour, track(narrow, 8000).contour];
    };
    statements.forEach((text, i) => {
      expect(contours(espeakClip(dir, text, `whole${i}`).samples), text).toEqual(['fall', 'fall']);
      // Up to the pause after the fourth word ("I was charged twice ... for the same order").
      const paused = espeakClip(dir, text, `paused${i}`, { afterWords: 4, ms: 600 });
      const gapAt = paused.samples.findIndex(
        (_, j, s) => j > 1600 && s.subarray(j, j + 4800).every((v) => Math.abs(v) < 100),
      );
      expect(gapAt, text).toBeGreaterThan(0);
      expect(contours(paused.samples.subarray(0, gapAt)), text).toEqual(['level', 'level']);
    });
  });
});
