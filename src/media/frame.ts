// The unit of audio inside Parley (DESIGN.md section 5): 16-bit PCM, mono, 20 ms. Carriers
// convert at the edge (G.711 at 8 kHz, Opus at 48 kHz); the voice session runs at 16 kHz.

export const FRAME_MS = 20;

/** The sample rates Parley converts between. */
export type SampleRate = 8000 | 16000 | 24000 | 48000;

/** The rate of audio inside the voice session. */
export const SESSION_RATE = 16000;

export interface AudioFrame {
  /** 16-bit PCM samples, mono; `sampleRate * FRAME_MS / 1000` of them for a full frame. */
  readonly samples: Int16Array;
  readonly sampleRate: SampleRate;
  /** When the frame starts, in ms on the call's clock (captured for frames in, due for frames out). */
  readonly at: number;
}

/** Samples in one 20 ms frame at `rate`. */
export const samplesPerFrame = (rate: SampleRate): number => (rate * FRAME_MS) / 1000;

/** A frame of silence at `rate`. */
export const silentFrame = (rate: SampleRate, at: number): AudioFrame => ({
  samples: new Int16Array(samplesPerFrame(rate)),
  sampleRate: rate,
  at,
});
