// Reading a call's recording in the SIP tests: a 16-bit stereo WAV at 16 kHz, the caller on the
// left and the agent's side (what the caller heard) on the right.

/** The right channel (the agent's side) of a 16-bit stereo WAV. */
export function agentSideOf(wav: Buffer): Int16Array {
  const start = wav.indexOf('data', 12) + 8;
  const frames = Math.floor((wav.length - start) / 4);
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i += 1) out[i] = wav.readInt16LE(start + i * 4 + 2);
  return out;
}

/**
 * The part of the agent's side heard while a transfer's bridge stood, from the timeline's
 * `bridged_at` and `ended_at` (the recording ends when the bridged call does), less `skipMs`.
 */
export function bridgedPart(
  agentSide: Int16Array,
  transfer: { bridged_at: string; ended_at: string },
  skipMs: number,
): Int16Array {
  const bridgedMs = Date.parse(transfer.ended_at) - Date.parse(transfer.bridged_at);
  const from = agentSide.length - Math.round((bridgedMs - skipMs) * 16);
  return agentSide.subarray(Math.max(0, from));
}

export interface LineFound {
  /** Where the line starts in the haystack, in ms. */
  atMs: number;
  /** The share of the line's voiced 100 ms windows that match there (normalized correlation ≥ 0.6). */
  matched: number;
}

const ENVELOPE_STEP = 160; // 10 ms at 16 kHz
const WINDOW = 1600; // 100 ms at 16 kHz

function envelope(samples: Int16Array): Float64Array {
  const out = new Float64Array(Math.floor(samples.length / ENVELOPE_STEP));
  for (let f = 0; f < out.length; f += 1) {
    let sum = 0;
    for (let i = f * ENVELOPE_STEP; i < (f + 1) * ENVELOPE_STEP; i += 1) sum += Math.abs(samples[i]!);
    out[f] = sum / ENVELOPE_STEP;
  }
  return out;
}

function correlation(a: Int16Array, aFrom: number, b: Int16Array, bFrom: number, length: number): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < length; i += 1) {
    const x = a[aFrom + i]!;
    const y = b[bFrom + i]!;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

/**
 * Finds a known line (16 kHz, as it would sound after the telephone band) in a recording's side,
 * waveform against waveform: the envelopes place it to 10 ms, the samples to one. What a speech
 * recognizer makes of the same audio depends on what it heard before; this does not.
 */
export function findLine(haystack: Int16Array, line: Int16Array): LineFound {
  const hay = envelope(haystack);
  const ref = envelope(line);
  let coarse = 0;
  let best = -Infinity;
  for (let at = 0; at + ref.length <= hay.length; at += 1) {
    let ab = 0;
    let aa = 0;
    for (let i = 0; i < ref.length; i += 1) {
      ab += hay[at + i]! * ref[i]!;
      aa += hay[at + i]! ** 2;
    }
    const score = aa === 0 ? 0 : ab / Math.sqrt(aa);
    if (score > best) [best, coarse] = [score, at];
  }
  let start = coarse * ENVELOPE_STEP;
  best = -Infinity;
  for (let lag = -ENVELOPE_STEP; lag <= ENVELOPE_STEP; lag += 1) {
    const at = coarse * ENVELOPE_STEP + lag;
    if (at < 0 || at + line.length > haystack.length) continue;
    const score = correlation(haystack, at, line, 0, line.length);
    if (score > best) [best, start] = [score, at];
  }
  // Window by window, allowing two samples either way (the two ends resample differently).
  let voiced = 0;
  let matched = 0;
  for (let w = 0; w + WINDOW <= line.length; w += WINDOW) {
    if (envelopeLevel(line, w) < 300) continue;
    voiced += 1;
    let windowBest = 0;
    for (let lag = -2; lag <= 2; lag += 1) {
      const at = start + w + lag;
      if (at < 0 || at + WINDOW > haystack.length) continue;
      windowBest = Math.max(windowBest, correlation(haystack, at, line, w, WINDOW));
    }
    if (windowBest >= 0.6) matched += 1;
  }
  return { atMs: start / 16, matched: voiced === 0 ? 0 : matched / voiced };
}

function envelopeLevel(samples: Int16Array, from: number): number {
  let sum = 0;
  for (let i = from; i < from + WINDOW; i += 1) sum += Math.abs(samples[i]!);
  return sum / WINDOW;
}
