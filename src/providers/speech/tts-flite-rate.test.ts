import { describe, expect, it } from 'vitest';
import { toSessionRate } from './tts-flite-rate.ts';

describe('flite audio at the session rate', () => {
  it('passes 16 kHz through and doubles 8 kHz, aligned with its input', () => {
    const wide = new Int16Array([1, 2, 3]);
    expect(toSessionRate({ samples: wide, sampleRate: 16000 })).toBe(wide);

    const narrow = new Int16Array(800);
    for (let i = 0; i < narrow.length; i += 1)
      narrow[i] = Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 8000));
    const out = toSessionRate({ samples: narrow, sampleRate: 8000 });
    expect(out.length).toBe(1600);
    // Away from the edges, every other output sample is the input sample (the filter's delay is
    // removed to within half a 16 kHz sample: at 300 Hz about 470 of 8000; one sample more would be 940).
    let worst = 0;
    for (let i = 100; i < 700; i += 1) worst = Math.max(worst, Math.abs(out[2 * i]! - narrow[i]!));
    expect(worst).toBeLessThan(600);
    expect(() => toSessionRate({ samples: wide, sampleRate: 22050 })).toThrow(/22050/);
  });
});
