import type { AudioFrame } from '../media/index.ts';

// The caller's pitch, for endpointing's second cue (docs/voice.md, "Turn-taking"): a speaker who
// is done with a statement lets their pitch fall at its end; one who pauses mid-line holds it
// level. Frames are brought to 4 kHz (plenty for a fundamental of 60 to 400 Hz) and kept for a
// second; F0 is estimated by YIN (de Cheveigné and Kawahara 2002) over 40 ms windows. Every
// second loud frame gives an estimate for the caller's usual pitch; the last few voiced frames
// are estimated only when the contour is read, at the speech end. About 3 µs of work per frame on
// average and no allocation on the frame path.

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
/** Samples kept: a second at 4 kHz (a power of two, read with a mask). */
const HISTORY = 4096;
/** Frames looked back over at the speech end for the last voiced ones (600 ms). */
const RECENT = 30;
/** One loud frame in this many gives an estimate for the caller's usual pitch. */
const REFERENCE_EVERY = 2;
/** Usual-pitch estimates kept: about 8 s of voicing, the line and what the caller said before. */
const REFERENCE = 200;

/** The end of a line's pitch against the speaker's: `unknown` when there is too little to read. */
export type Contour = 'fall' | 'level' | 'unknown';

/** The contour's rules, in semitones and voiced frames (20 ms each). */
export const CONTOUR = {
  /** The last voiced frames this far under the speaker's usual (median) pitch: a final fall. */
  fallSemitones: 2.5,
  /** The last voiced frames read at the end (100 ms). */
  endFrames: 5,
  /** Fewer usual-pitch estimates (about 200 ms of voicing) or voiced end frames: unknown. */
  minReference: 5,
  minEnd: 3,
} as const;

export interface PitchTracker {
  /** One frame of the caller's audio, in order. */
  frame(frame: AudioFrame): void;
  /** The contour of the voicing so far (read at the speech end). */
  contour(): Contour;
  /** F0 of the last 40 ms in Hz, 0 when the last frame was quiet or not voiced. */
  currentHz(): number;
}

export function createPitchTracker(): PitchTracker {
  const history = new Float32Array(HISTORY);
  let written = 0;
  const window = new Float32Array(WINDOW);
  const diff = new Float32Array(MAX_LAG + 2);
  const recentLoud = new Uint8Array(RECENT);
  const recentEnd = new Float64Array(RECENT);
  let recentNext = 0;
  let loudFrames = 0;
  const reference = new Float32Array(REFERENCE);
  let referenceNext = 0;
  let referenceCount = 0;

  /** Appends the frame at 4 kHz; returns its RMS. */
  function append(frame: AudioFrame): number {
    const samples = frame.samples;
    const step = Math.max(1, Math.round(frame.sampleRate / RATE));
    const count = Math.floor(samples.length / step);
    let energy = 0;
    for (let i = 0; i < count; i += 1) {
      let sum = 0;
      for (let j = 0; j < step; j += 1) sum += samples[i * step + j]!;
      const value = sum / step;
      history[(written + i) & (HISTORY - 1)] = value;
      energy += value * value;
    }
    written += count;
    return Math.sqrt(energy / Math.max(1, count));
  }

  /** F0 of the 40 ms that end at sample `end`, 0 when unvoiced or no longer kept. */
  function estimateAt(end: number): number {
    if (end < WINDOW || written - end > HISTORY - WINDOW) return 0;
    for (let i = 0; i < WINDOW; i += 1) window[i] = history[(end - WINDOW + i) & (HISTORY - 1)]!;
    return estimateHz();
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
    const end: number[] = [];
    for (let k = 1; k <= RECENT && end.length < CONTOUR.endFrames; k += 1) {
      const slot = (recentNext - k + RECENT) % RECENT;
      if (recentLoud[slot] !== 1) continue;
      const hz = estimateAt(recentEnd[slot]!);
      if (hz > 0) end.push(semitones(hz));
    }
    if (referenceCount < CONTOUR.minReference || end.length < CONTOUR.minEnd) return 'unknown';
    const usual = median(Array.from(reference.subarray(0, referenceCount)));
    return median(end) - usual <= -CONTOUR.fallSemitones ? 'fall' : 'level';
  }

  return {
    frame(frame) {
      const loud = append(frame) >= MIN_RMS;
      recentLoud[recentNext] = loud ? 1 : 0;
      recentEnd[recentNext] = written;
      recentNext = (recentNext + 1) % RECENT;
      if (!loud || ++loudFrames % REFERENCE_EVERY !== 0) return;
      const hz = estimateAt(written);
      if (hz === 0) return;
      reference[referenceNext] = semitones(hz);
      referenceNext = (referenceNext + 1) % REFERENCE;
      referenceCount = Math.min(REFERENCE, referenceCount + 1);
    },
    contour,
    currentHz() {
      return recentLoud[(recentNext - 1 + RECENT) % RECENT] === 1 ? estimateAt(written) : 0;
    },
  };
}

const semitones = (hz: number) => 12 * Math.log2(hz / 100);

function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}
