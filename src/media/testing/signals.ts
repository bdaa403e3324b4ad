// Test signals and measurements shared by the media tests.

/** `length` samples of a sine at `frequency` Hz, `amplitude` peak, sampled at `rate`. */
export function sine(
  frequency: number,
  rate: number,
  length: number,
  amplitude: number,
  phase = 0,
): Int16Array {
  const out = new Int16Array(length);
  for (let n = 0; n < length; n += 1) {
    out[n] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * n) / rate + phase));
  }
  return out;
}

/** Amplitude of the component at `frequency` in `samples` (one DFT bin at that exact frequency). */
export function amplitudeAt(samples: ArrayLike<number>, frequency: number, rate: number): number {
  let re = 0;
  let im = 0;
  for (let n = 0; n < samples.length; n += 1) {
    const angle = (2 * Math.PI * frequency * n) / rate;
    re += samples[n]! * Math.cos(angle);
    im -= samples[n]! * Math.sin(angle);
  }
  return (2 * Math.hypot(re, im)) / samples.length;
}

export function rms(samples: ArrayLike<number>): number {
  let sum = 0;
  for (let n = 0; n < samples.length; n += 1) sum += samples[n]! ** 2;
  return Math.sqrt(sum / samples.length);
}

/** A deterministic pseudo-random generator (mulberry32), so noise is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A speech-like test signal: a 120-180 Hz gliding pitch with harmonics shaped by two moving
 * formants, syllable-rate amplitude modulation, and a little noise.
 */
export function speechLike(rate: number, length: number, seed = 1): Int16Array {
  const random = seededRandom(seed);
  const out = new Int16Array(length);
  let phase = 0;
  for (let n = 0; n < length; n += 1) {
    const t = n / rate;
    const pitch = 150 + 30 * Math.sin(2 * Math.PI * 0.7 * t);
    phase += (2 * Math.PI * pitch) / rate;
    const formant1 = 600 + 250 * Math.sin(2 * Math.PI * 1.3 * t);
    const formant2 = 1700 + 500 * Math.sin(2 * Math.PI * 0.9 * t);
    let value = 0;
    for (let h = 1; h * pitch < Math.min(3800, rate / 2 - 200); h += 1) {
      const f = h * pitch;
      const weight =
        Math.exp(-(((f - formant1) / 200) ** 2)) + 0.5 * Math.exp(-(((f - formant2) / 300) ** 2)) + 0.05;
      value += weight * Math.sin(h * phase);
    }
    const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    out[n] = Math.round(4000 * envelope * value + 200 * (random() - 0.5));
  }
  return out;
}

/** Pearson correlation of two equally long signals. */
export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i += 1) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i += 1) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}
