import type { AudioFrame } from '../media/index.ts';

// The beep of an answering machine: one steady tone between 400 and 2000 Hz lasting at least
// 150 ms. Per 20 ms frame: the frequency from the zero crossings (interpolated between samples,
// so a clean tone reads within a few Hz), then a Goertzel filter at that frequency says how much
// of the frame's energy is that one tone. Speech fails the tonality test, silence the level test,
// and a tone must keep its frequency (within 4%) from frame to frame. No allocation per frame.

export interface BeepDetectorOptions {
  minHz?: number;
  maxHz?: number;
  minMs?: number;
  /** RMS level below which a frame is not a tone (default 300, about -40 dBFS). */
  minRms?: number;
  /** Share of the frame's energy at the tone's frequency (default 0.6). */
  minTonality?: number;
}

/** `beep` once a tone has lasted long enough; `end` on the first frame after it. */
export type BeepEvent = 'none' | 'beep' | 'end';

export interface BeepDetector {
  push(frame: AudioFrame): BeepEvent;
  /** The frequency of the tone in progress (Hz), or 0. */
  readonly toneHz: number;
}

/** The frequency (Hz) of a frame if it is one steady tone, else 0. */
export function toneFrequency(
  samples: Int16Array,
  rate: number,
  minRms: number,
  minTonality: number,
): number {
  const n = samples.length;
  if (n < 16) return 0;
  let energy = 0;
  let crossings = 0;
  let first = -1;
  let last = -1;
  let previous = samples[0] ?? 0;
  energy += previous * previous;
  for (let i = 1; i < n; i += 1) {
    const x = samples[i] ?? 0;
    energy += x * x;
    if ((previous < 0 && x >= 0) || (previous >= 0 && x < 0)) {
      const at = i - 1 + previous / (previous - x);
      if (first < 0) first = at;
      last = at;
      crossings += 1;
    }
    previous = x;
  }
  if (Math.sqrt(energy / n) < minRms || crossings < 3 || last <= first) return 0;
  const hz = ((crossings - 1) / 2) * (rate / (last - first));
  // Goertzel at exactly that frequency: the energy of the one sinusoid, relative to all of it.
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / rate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i += 1) {
    const s0 = (samples[i] ?? 0) + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  const tonality = power / ((n * energy) / 2);
  return tonality >= minTonality ? hz : 0;
}

export function createBeepDetector(options: BeepDetectorOptions = {}): BeepDetector {
  const minHz = options.minHz ?? 400;
  const maxHz = options.maxHz ?? 2000;
  const minMs = options.minMs ?? 150;
  const minRms = options.minRms ?? 300;
  const minTonality = options.minTonality ?? 0.6;
  let runHz = 0;
  let runMs = 0;
  let reported = false;

  return {
    get toneHz() {
      return runHz;
    },
    push(frame) {
      const hz = toneFrequency(frame.samples, frame.sampleRate, minRms, minTonality);
      const frameMs = (frame.samples.length * 1000) / frame.sampleRate;
      const steady = hz >= minHz && hz <= maxHz && (runHz === 0 || Math.abs(hz - runHz) <= runHz * 0.04);
      if (steady) {
        if (runHz === 0) runHz = hz;
        runMs += frameMs;
        if (!reported && runMs >= minMs) {
          reported = true;
          return 'beep';
        }
        return 'none';
      }
      const ended = reported;
      runHz = hz >= minHz && hz <= maxHz ? hz : 0;
      runMs = runHz > 0 ? frameMs : 0;
      reported = false;
      return ended ? 'end' : 'none';
    },
  };
}
