import type { AudioFrame } from '../media/index.ts';

// The caller's pitch, for endpointing's second cue (docs/voice.md, "Turn-taking"): a speaker who
// is done with a statement lets their pitch fall at its end; one who pauses mid-line holds it
// level. Each frame is brought to 4 kHz (plenty for a fundamental of 60 to 400 Hz) and its F0
// estimated by YIN (de Cheveigné and Kawahara 2002) over the last 40 ms: about 7 µs of work per
// frame and no allocation. The voiced frames' pitch, in semitones, goes into a ring that the
// contour is read from at the speech end.

const RATE = 4000;
const WINDOW = 160;
/** YIN's integration window and lag range: 60 to 400 Hz. */
const INTEGRATE = 80;
const MIN_LAG = 10;
const MAX_LAG = 67;
/** YIN's absolute threshold on the cumulative mean normalized difference. */
const YIN_THRESHOLD = 0.2;
/** Quieter frames (RMS at 4 kHz) are not read for pitch. */
const MIN_RMS = 300;
/** Voiced frames kept: about 6 s of voicing, the line and what the caller said before it. */
const RING = 300;

/** The end of a line's pitch against the speaker's: `unknown` when there is too little to read. */
export type Contour = 'fall' | 'level' | 'unknown';

/** The contour's rules, in semitones and voiced frames (20 ms each). */
export const CONTOUR = {
  /** The last voiced frames this far under the speaker's median pitch: a final fall. */
  fallSemitones: 2.5,
  /** The last voiced frames read at the end (100 ms). */
  endFrames: 5,
  /** Fewer voiced frames heard so far (200 ms): unknown. */
  minFrames: 10,
} as const;

export interface PitchTracker {
  /** One frame of the caller's audio, in order. */
  frame(frame: AudioFrame): void;
  /** The contour of the voicing so far (read at the speech end). */
  contour(): Contour;
  /** The last frame's F0 in Hz, 0 when it was not voiced. */
  readonly lastHz: number;
}

export function createPitchTracker(): PitchTracker {
  const window = new Float32Array(WINDOW);
  const diff = new Float32Array(MAX_LAG + 2);
  const ring = new Float32Array(RING);
  let ringNext = 0;
  let ringCount = 0;
  let lastHz = 0;

  function shiftIn(frame: AudioFrame): number {
    const samples = frame.samples;
    const step = Math.max(1, Math.round(frame.sampleRate / RATE));
    const count = Math.floor(samples.length / step);
    window.copyWithin(0, count);
    const base = WINDOW - count;
    let energy = 0;
    for (let i = 0; i < count; i += 1) {
      let sum = 0;
      for (let j = 0; j < step; j += 1) sum += samples[i * step + j]!;
      const value = sum / step;
      window[base + i] = value;
      energy += value * value;
    }
    return Math.sqrt(energy / Math.max(1, count));
  }

  function estimateHz(): number {
    // The difference function lag by lag, stopping at the first dip under the threshold once it
    // stops falling (its right neighbour is then computed too, for the parabola below).
    let running = 0;
    let best = -1;
    diff[0] = 1;
    for (let lag = 1; lag <= MAX_LAG + 1; lag += 1) {
      let d = 0;
      for (let i = 0; i < INTEGRATE; i += 1) {
        const delta = window[i]! - window[i + lag]!;
        d += delta * delta;
      }
      running += d;
      const value = running > 0 ? (d * lag) / running : 1;
      diff[lag] = value;
      if (best >= 0) {
        if (value >= diff[best]! || lag > MAX_LAG) break;
        best = lag;
      } else if (lag >= MIN_LAG && lag <= MAX_LAG && value < YIN_THRESHOLD) best = lag;
    }
    if (best < 0) return 0;
    // A parabola through the minimum and its neighbours places the period between samples.
    const a = diff[best - 1]!;
    const b = diff[best]!;
    const c = diff[best + 1]!;
    const bend = a - 2 * b + c;
    const period = bend > 0 ? best + (a - c) / (2 * bend) : best;
    return RATE / period;
  }

  function contour(): Contour {
    if (ringCount < CONTOUR.minFrames) return 'unknown';
    const all = new Float32Array(ringCount);
    for (let i = 0; i < ringCount; i += 1) all[i] = ring[(ringNext - 1 - i + RING) % RING]!;
    const end = median(all.subarray(0, CONTOUR.endFrames));
    return end - median(all) <= -CONTOUR.fallSemitones ? 'fall' : 'level';
  }

  return {
    frame(frame) {
      const rms = shiftIn(frame);
      lastHz = rms >= MIN_RMS ? estimateHz() : 0;
      if (lastHz === 0) return;
      ring[ringNext] = 12 * Math.log2(lastHz / 100);
      ringNext = (ringNext + 1) % RING;
      ringCount = Math.min(RING, ringCount + 1);
    },
    contour,
    get lastHz() {
      return lastHz;
    },
  };
}

function median(values: Float32Array): number {
  const sorted = Float32Array.from(values).sort();
  return sorted[sorted.length >> 1] ?? 0;
}
