// In-band DTMF detection: Goertzel filters at the eight DTMF frequencies over blocks of 12.75 ms
// (102 samples at 8 kHz, as in most telephone detectors: short enough that two blocks fit in the
// shortest valid tone, long enough to part 697 from 770 Hz). A block names a key when
//   - one row tone and one column tone each reach the minimum level,
//   - each stands 6 dB above the others of its group,
//   - their levels differ by no more than the allowed twist (8 dB with the high tone weaker, as
//     lines attenuate high frequencies, 4 dB the other way), and
//   - the two tones carry most of the block's energy (speech and noise spread theirs).
// A key is reported once when two blocks in a row name it (about 25-38 ms, so tones of 40 ms and
// more always count) and released after two blocks without it. Frames of any length go in one
// after another; blocks run across frame edges.
import { DTMF_HIGH_HZ, DTMF_LOW_HZ, dtmfKeyAt } from './dtmf-digits.ts';
import type { SampleRate } from './frame.ts';

const BLOCK_MS = 12.75;
/** Peak of each tone at the minimum level: about -29 dBm0. */
const MIN_AMPLITUDE = 800;
const GROUP_MARGIN = 10 ** (6 / 10);
const TWIST_HIGH_WEAKER = 10 ** (8 / 10);
const TWIST_LOW_WEAKER = 10 ** (4 / 10);
/** Share of the block's energy the two tones must hold. */
const TONE_SHARE = 0.7;
const PRESS_BLOCKS = 2;
const RELEASE_BLOCKS = 2;
const FREQUENCIES = [...DTMF_LOW_HZ, ...DTMF_HIGH_HZ];

export class DtmfDetector {
  readonly sampleRate: SampleRate;
  private readonly blockSize: number;
  private readonly coefficients: Float64Array;
  private readonly s1 = new Float64Array(8);
  private readonly s2 = new Float64Array(8);
  private readonly power = new Float64Array(8);
  private readonly minPower: number;
  private filled = 0;
  private energy = 0;
  /** The key the last blocks named, and how many blocks in a row. */
  private candidate = '';
  private run = 0;
  /** The key reported and not yet released. */
  private pressed = '';
  private misses = 0;

  constructor(sampleRate: SampleRate) {
    this.sampleRate = sampleRate;
    this.blockSize = Math.round((BLOCK_MS * sampleRate) / 1000);
    this.coefficients = Float64Array.from(FREQUENCIES, (f) => 2 * Math.cos((2 * Math.PI * f) / sampleRate));
    // A sine of amplitude A at a filter's own frequency gives a power of (A * N / 2)^2.
    this.minPower = ((MIN_AMPLITUDE * this.blockSize) / 2) ** 2;
  }

  /** Feeds the next samples; returns the keys newly pressed in them ('' almost always). */
  push(samples: Int16Array): string {
    const { coefficients, s1, s2, blockSize } = this;
    let keys = '';
    for (let n = 0; n < samples.length; n += 1) {
      const x = samples[n]!;
      this.energy += x * x;
      for (let k = 0; k < 8; k += 1) {
        const s = x + coefficients[k]! * s1[k]! - s2[k]!;
        s2[k] = s1[k]!;
        s1[k] = s;
      }
      this.filled += 1;
      if (this.filled === blockSize) {
        const key = this.endBlock();
        if (key !== '') keys += key;
      }
    }
    return keys;
  }

  /** Forgets the partial block and any key held. */
  reset(): void {
    this.s1.fill(0);
    this.s2.fill(0);
    this.filled = 0;
    this.energy = 0;
    this.candidate = '';
    this.run = 0;
    this.pressed = '';
    this.misses = 0;
  }

  /** Classifies the block just completed; returns the key it presses, or ''. */
  private endBlock(): string {
    const { s1, s2, coefficients, power } = this;
    for (let k = 0; k < 8; k += 1) {
      power[k] = s1[k]! * s1[k]! + s2[k]! * s2[k]! - coefficients[k]! * s1[k]! * s2[k]!;
    }
    const key = this.blockKey(this.energy);
    this.s1.fill(0);
    this.s2.fill(0);
    this.filled = 0;
    this.energy = 0;

    if (key !== '' && key === this.candidate) this.run += 1;
    else {
      this.candidate = key;
      this.run = key === '' ? 0 : 1;
    }
    if (this.pressed !== '') {
      if (key === this.pressed) this.misses = 0;
      else if (++this.misses >= RELEASE_BLOCKS) this.pressed = '';
    }
    if (this.pressed === '' && this.run >= PRESS_BLOCKS) {
      this.pressed = this.candidate;
      this.misses = 0;
      return this.pressed;
    }
    return '';
  }

  /** The key this block's powers name, or ''. */
  private blockKey(energy: number): string {
    const row = strongest(this.power, 0);
    const column = strongest(this.power, 4);
    const rowPower = this.power[row]!;
    const columnPower = this.power[column]!;
    if (rowPower < this.minPower || columnPower < this.minPower) return '';
    if (columnPower * TWIST_HIGH_WEAKER < rowPower || rowPower * TWIST_LOW_WEAKER < columnPower) return '';
    for (let k = 0; k < 4; k += 1) {
      if (k !== row && this.power[k]! * GROUP_MARGIN > rowPower) return '';
      if (k + 4 !== column && this.power[k + 4]! * GROUP_MARGIN > columnPower) return '';
    }
    // Power (A N / 2)^2 is a sine's energy (A^2 N / 2) times N / 2.
    const toneEnergy = ((rowPower + columnPower) * 2) / this.blockSize;
    if (toneEnergy < TONE_SHARE * energy) return '';
    return dtmfKeyAt(row, column - 4);
  }
}

/** Index of the largest of power[from .. from + 3]. */
function strongest(power: Float64Array, from: number): number {
  let best = from;
  for (let k = from + 1; k < from + 4; k += 1) if (power[k]! > power[best]!) best = k;
  return best;
}
