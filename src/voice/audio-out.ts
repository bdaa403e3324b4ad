import {
  Resampler,
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
  const resamplers = new Map<number, Resampler>();

  return {
    process(frame) {
      let samples = frame.samples;
      if (frame.sampleRate !== rate) {
        let resampler = resamplers.get(frame.sampleRate);
        if (!resampler) {
          resampler = new Resampler(frame.sampleRate, rate);
          resamplers.set(frame.sampleRate, resampler);
        }
        // A new array per frame: the leg keeps it queued.
        const out = new Int16Array(resampler.maxOutput(samples.length));
        const written = resampler.process(samples, out);
        samples = written === out.length ? out : out.subarray(0, written);
      }
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
