import {
  RateConverter,
  SESSION_RATE,
  samplesPerFrame,
  type AudioFrame,
  type SampleRate,
} from '../media/index.ts';
import { createNoiseBed, type NoiseBed } from './noise.ts';
import type { NoiseType } from './settings.ts';

// The agent's audio on its way to the leg: resampled to the session rate when the synthesizer
// speaks another, padded to a whole 20 ms frame (a segment's last frame may be short), scaled by
// `voice_volume`, with the background noise bed mixed in. The synthesizer hands its frames over,
// so gain and noise work in place on them; only resampling and padding make a new array.

export interface AudioOut {
  process(frame: AudioFrame): AudioFrame;
}

export interface AudioOutOptions {
  /** Gain: 1 leaves the audio as synthesized. */
  volume: number;
  noise: { type: NoiseType; volume: number } | null;
  rate?: SampleRate;
}

export function createAudioOut(options: AudioOutOptions): AudioOut {
  const rate = options.rate ?? SESSION_RATE;
  const size = samplesPerFrame(rate);
  const gain = options.volume;
  const noise: NoiseBed | null = options.noise
    ? createNoiseBed(options.noise.type, options.noise.volume)
    : null;
  // Converted frames are new arrays: the leg keeps them queued.
  const toLeg = new RateConverter(rate);

  return {
    process(frame) {
      let samples = toLeg.convert(frame.samples, frame.sampleRate);
      if (samples.length < size) {
        const padded = new Int16Array(size);
        padded.set(samples);
        samples = padded;
      }
      if (gain !== 1) {
        for (let i = 0; i < samples.length; i += 1) {
          const v = (samples[i] ?? 0) * gain;
          samples[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
        }
      }
      noise?.mix(samples, rate);
      return samples === frame.samples && frame.sampleRate === rate
        ? frame
        : { samples, sampleRate: rate, at: frame.at };
    },
  };
}
