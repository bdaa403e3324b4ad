import type { NoiseType } from './settings.ts';

// Background noise (`background_noise`) made procedurally under the agent's speech, so nothing is
// shipped or loaded and nothing is allocated per frame: the state is a handful of numbers.
//   office: pink noise (Kellet's three-pole filter over white noise), a steady air-conditioned hum.
//   cafe:   pink noise under a slowly wandering loudness (a room of murmur, ~5 changes a second)
//           plus the odd cup clink (a short decaying 3 kHz tone, about one every 2 s).
// `volume` 0..100 sets the level: 100 is an RMS of about 1500 (-27 dBFS), the default 20 about 300.
// The bed plays only while the agent speaks (it rides on the agent's frames).

const FULL_SCALE_RMS = 1500;
// The pink filter below (Kellet's, scaled by 0.25) has an RMS near 0.43 for white input in [-1, 1).
const PINK_RMS = 0.43;

export interface NoiseBed {
  /** Adds the noise to `samples` in place (clipped to 16 bits). */
  mix(samples: Int16Array, rate: number): void;
}

export function createNoiseBed(type: NoiseType, volume: number, seed = 0x2545f491): NoiseBed {
  const gain = ((Math.min(100, Math.max(0, volume)) / 100) * FULL_SCALE_RMS) / PINK_RMS;
  const cafe = type === 'cafe';
  // The generator's state, copied into locals for each frame (faster than closure slots).
  let state = seed >>> 0 || 1;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let envelope = 1;
  let envelopeTarget = 1;
  let untilChange = 0;
  let clink = 0;
  let clinkPhase = 0;

  return {
    mix(samples, rate) {
      if (gain === 0) return;
      const smoothing = 1 - Math.exp(-1 / (0.05 * rate));
      const clinkDecay = Math.exp(-1 / (0.03 * rate));
      const clinkStep = (2 * Math.PI * 3000) / rate;
      let s = state;
      let p0 = b0;
      let p1 = b1;
      let p2 = b2;
      let env = envelope;
      let target = envelopeTarget;
      let until = untilChange;
      let c = clink;
      let cPhase = clinkPhase;
      for (let i = 0; i < samples.length; i += 1) {
        // xorshift32, as a uniform number in [-1, 1).
        s ^= s << 13;
        s ^= s >>> 17;
        s ^= s << 5;
        s >>>= 0;
        const w = s / 2147483648 - 1;
        p0 = 0.99765 * p0 + w * 0.099046;
        p1 = 0.963 * p1 + w * 0.2965164;
        p2 = 0.57 * p2 + w * 1.0526913;
        let value = (p0 + p1 + p2 + w * 0.1848) * 0.25;
        if (cafe) {
          if (until <= 0) {
            // A new loudness for the murmur, and now and then a clink (the same white draw).
            target = 0.4 + 0.9 * (w * 0.5 + 0.5);
            until = rate / 5;
            if (w > 0.8) c = 0.8;
          }
          until -= 1;
          env += (target - env) * smoothing;
          value *= env;
          if (c > 0.001) {
            cPhase += clinkStep;
            value += c * Math.sin(cPhase);
            c *= clinkDecay;
          }
        }
        const mixed = (samples[i] ?? 0) + value * gain;
        samples[i] = mixed > 32767 ? 32767 : mixed < -32768 ? -32768 : mixed;
      }
      state = s;
      b0 = p0;
      b1 = p1;
      b2 = p2;
      envelope = env;
      envelopeTarget = target;
      untilChange = until;
      clink = c;
      clinkPhase = cPhase;
    },
  };
}
