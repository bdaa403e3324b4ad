// Streaming sample-rate conversion between the rates Parley meets (8, 16, 24 and 48 kHz): a
// rational polyphase resampler. Conceptually the input is raised to the common rate by inserting
// `up - 1` zeros between samples, low-passed there, and every `down`-th sample kept; the polyphase
// form computes only the kept samples and skips the zeros. The filter keeps its history between
// calls, so 20 ms frames fed one after another give the same output as the whole signal at once
// (no clicks at frame edges). Nothing is allocated after construction.
import { kaiserLength, kaiserLowpass } from './fir.ts';
import { FRAME_MS, type SampleRate } from './frame.ts';

// Passband to 42.5% of the lower rate (3.4 kHz at 8 kHz: the telephone band), stopband from its
// Nyquist frequency, 50 dB down: below G.711's own noise floor (about 38 dB SNR), so aliasing is
// never what the far end hears, at about 40 multiply-adds per output sample for 8 <-> 16 kHz.
const PASSBAND = 0.425;
const ATTENUATION_DB = 50;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

export class Resampler {
  readonly from: SampleRate;
  readonly to: SampleRate;
  /** How far the output lags the input, in output samples (the filter's group delay). */
  readonly delay: number;
  private readonly up: number;
  private readonly down: number;
  /** Taps per phase; phase `p`'s taps are `coefficients[p * width ...]`, oldest sample first. */
  private readonly width: number;
  private readonly coefficients: Float64Array;
  /**
   * Decimation only (`up` is 1): the one phase is the whole linear-phase filter, symmetric, so
   * each pair of inputs equally far from its middle is added first and multiplied once. This
   * halves the multiplies on the hottest path there is (every frame sent to a telephone leg goes
   * 16 -> 8 kHz).
   */
  private readonly symmetric: boolean;
  /** The last `width - 1` input samples, then room for one chunk of input. */
  private readonly work: Float64Array;
  private readonly chunk: number;
  /** Position of the next output on the raised-rate axis, from the current chunk's first sample. */
  private position = 0;

  constructor(from: SampleRate, to: SampleRate) {
    this.from = from;
    this.to = to;
    const divisor = gcd(from, to);
    this.up = to / divisor;
    this.down = from / divisor;
    this.chunk = (from * FRAME_MS) / 1000;
    if (from === to) {
      this.width = 1;
      this.coefficients = Float64Array.of(1);
      this.delay = 0;
    } else {
      const raised = from * this.up;
      const lower = Math.min(from, to);
      const transition = ((0.5 - PASSBAND) * lower) / raised;
      const cutoff = ((PASSBAND + 0.5) / 2) * (lower / raised);
      const taps = kaiserLowpass(kaiserLength(ATTENUATION_DB, transition), cutoff, ATTENUATION_DB);
      this.width = Math.ceil(taps.length / this.up);
      this.coefficients = polyphase(taps, this.up, this.width);
      this.delay = (taps.length - 1) / 2 / this.down;
    }
    this.symmetric = this.up === 1 && isSymmetric(this.coefficients);
    this.work = new Float64Array(this.width - 1 + this.chunk);
  }

  /** The most samples `process` can write for `inputLength` samples of input. */
  maxOutput(inputLength: number): number {
    return Math.ceil((inputLength * this.up) / this.down);
  }

  /**
   * Resamples `input`, the next stretch of the stream, into `out` (room for `maxOutput`); returns
   * the number of samples written. A 20 ms frame in gives exactly a 20 ms frame out.
   */
  process(input: Int16Array, out: Int16Array): number {
    const room = this.maxOutput(input.length);
    if (out.length < room) throw new RangeError(`output holds ${out.length} samples, ${room} needed`);
    let written = 0;
    for (let start = 0; start < input.length; start += this.chunk) {
      const end = Math.min(input.length, start + this.chunk);
      written = this.processChunk(input, start, end, out, written);
    }
    return written;
  }

  /** Forgets the history: the next input starts a new stream preceded by silence. */
  reset(): void {
    this.work.fill(0);
    this.position = 0;
  }

  private processChunk(input: Int16Array, start: number, end: number, out: Int16Array, at: number): number {
    const { work, coefficients, width, up, down } = this;
    const history = width - 1;
    const count = end - start;
    for (let i = 0; i < count; i += 1) work[history + i] = input[start + i]!;
    const limit = count * up;
    let position = this.position;
    let written = at;
    const half = width >> 1;
    const middle = width & 1 ? coefficients[half]! : 0;
    while (position < limit) {
      let acc = 0;
      if (this.symmetric) {
        // work[position .. position + history] are the inputs under the taps, oldest first.
        acc = middle * work[position + half]!;
        for (let k = 0, j = position + history; k < half; k += 1, j -= 1)
          acc += coefficients[k]! * (work[position + k]! + work[j]!);
      } else {
        const newest = (position / up) | 0;
        const phase = position - newest * up;
        // work[newest .. newest + history] are the inputs under phase `phase`'s taps, oldest first.
        for (let k = 0, c = phase * width; k < width; k += 1, c += 1)
          acc += coefficients[c]! * work[newest + k]!;
      }
      const sample = Math.round(acc);
      out[written] = sample > 32767 ? 32767 : sample < -32768 ? -32768 : sample;
      written += 1;
      position += down;
    }
    this.position = position - limit;
    work.copyWithin(0, count, count + history);
    return written;
  }
}

function isSymmetric(taps: Float64Array): boolean {
  for (let k = 0, j = taps.length - 1; k < j; k += 1, j -= 1) if (taps[k] !== taps[j]) return false;
  return true;
}

/**
 * Splits `taps` into `up` phases of `width` taps each, scaled by `up` (the zeros inserted between
 * samples carry no energy) and reversed so each phase reads its inputs oldest first. Each phase is
 * normalized to sum to exactly 1 so a constant input stays exactly constant.
 */
function polyphase(taps: Float64Array, up: number, width: number): Float64Array {
  const out = new Float64Array(up * width);
  for (let phase = 0; phase < up; phase += 1) {
    let sum = 0;
    for (let k = 0; k < width; k += 1) {
      const tap = taps[phase + k * up] ?? 0;
      out[phase * width + (width - 1 - k)] = tap;
      sum += tap;
    }
    for (let k = 0; k < width; k += 1) out[phase * width + k] = out[phase * width + k]! / sum;
  }
  return out;
}

/**
 * Converts audio of any rate to one rate, keeping a resampler (with its filter state) per source
 * rate. Audio already at the target rate is returned as it is; converted audio is a new array.
 */
export class RateConverter {
  readonly #resamplers = new Map<number, Resampler>();

  constructor(readonly to: SampleRate) {}

  convert(samples: Int16Array, from: SampleRate): Int16Array {
    if (from === this.to) return samples;
    let resampler = this.#resamplers.get(from);
    if (!resampler) {
      resampler = new Resampler(from, this.to);
      this.#resamplers.set(from, resampler);
    }
    const out = new Int16Array(resampler.maxOutput(samples.length));
    const written = resampler.process(samples, out);
    return written === out.length ? out : out.subarray(0, written);
  }
}
