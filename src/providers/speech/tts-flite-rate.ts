// flite's 8 kHz voice (kal) taken to the session's 16 kHz with src/media's resampler, in one go
// per piece (each piece is a whole utterance, with silence at both ends).
import { Resampler, SESSION_RATE } from '../../media/index.ts';
import type { FliteAudio } from './tts-flite-synth.ts';

/** The piece's samples at SESSION_RATE, aligned with the input (the filter's delay removed). */
export function toSessionRate(audio: FliteAudio): Int16Array {
  if (audio.sampleRate === SESSION_RATE) return audio.samples;
  if (audio.sampleRate !== 8000) throw new Error(`flite gave ${audio.sampleRate} Hz audio`);
  const resampler = new Resampler(8000, SESSION_RATE);
  const delay = Math.round(resampler.delay);
  // Zeros after the input flush the filter's tail out; the first `delay` outputs are its lead-in.
  const padded = new Int16Array(audio.samples.length + Math.ceil(delay / 2) + 1);
  padded.set(audio.samples);
  const out = new Int16Array(resampler.maxOutput(padded.length));
  const written = resampler.process(padded, out);
  const length = Math.min(audio.samples.length * 2, written - delay);
  return out.subarray(delay, delay + length);
}
