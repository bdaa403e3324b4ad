// In-band DTMF: a key's two tones summed (ITU-T Q.23), for carriers that cannot send RFC 4733
// events and for tests of the detector. Each tone burst starts and ends with a short raised-cosine
// ramp, since a hard edge splatters energy across the band (a click) that detectors may misread.
import { dtmfFrequencies } from './dtmf-digits.ts';
import type { SampleRate } from './frame.ts';

export interface DtmfToneOptions {
  sampleRate: SampleRate;
  /** Length of each tone; default 100 ms. */
  toneMs?: number;
  /** Silence after each tone; default 100 ms. */
  gapMs?: number;
  /**
   * Peak of each of the two tones; default 7000, about -10 dBm0 (G.711's 0 dBm0 sine peaks near
   * 22,700), the level telephones send.
   */
  amplitude?: number;
}

const RAMP_MS = 2;

/** The tones of `digits`, each followed by a gap; throws on a character that is not a key. */
export function dtmfTones(digits: string, options: DtmfToneOptions): Int16Array {
  const { sampleRate } = options;
  const tone = Math.round(((options.toneMs ?? 100) * sampleRate) / 1000);
  const gap = Math.round(((options.gapMs ?? 100) * sampleRate) / 1000);
  const amplitude = options.amplitude ?? 7000;
  if (!(tone > 0) || gap < 0 || !(amplitude > 0 && amplitude <= 16383))
    throw new RangeError('bad DTMF tone options');
  const ramp = Math.min(Math.round((RAMP_MS * sampleRate) / 1000), tone >> 1);
  const out = new Int16Array([...digits].length * (tone + gap));
  let at = 0;
  for (const digit of digits) {
    const pair = dtmfFrequencies(digit);
    if (!pair) throw new RangeError(`not a DTMF key: ${JSON.stringify(digit)}`);
    const [low, high] = pair;
    for (let n = 0; n < tone; n += 1) {
      const edge = Math.min(n, tone - 1 - n);
      const gain = edge < ramp ? 0.5 - 0.5 * Math.cos((Math.PI * edge) / ramp) : 1;
      const t = n / sampleRate;
      out[at + n] = Math.round(
        amplitude * gain * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)),
      );
    }
    at += tone + gap;
  }
  return out;
}
