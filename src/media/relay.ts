import { SESSION_RATE, samplesPerFrame, type AudioFrame, type SampleRate } from './frame.ts';
import type { MediaLeg, MediaReceiver } from './leg.ts';
import { Resampler } from './resampler.ts';

// One direction of a bridge between two legs (a warm transfer): what one far end says is played
// to the other, and its keys are sent on. Legs take audio at SESSION_RATE, so frames of another
// rate (a SIP leg hands the session its 8 kHz) are converted here. Two clocks never run exactly
// together, so the other leg's queue can grow for the rest of the call (50 ppm apart is 100 ms in
// half an hour): when it stands more than MAX_GROWTH_MS above its lowest of the last 5 to 10
// seconds, a frame is dropped. The lowest, not zero: some legs always hold audio in flight (a
// Twilio stream counts what it sent until the mark comes back), and jitter comes and goes.

const MAX_GROWTH_MS = 300;
/** Frames per block of the running minimum (two blocks: the last 5 to 10 seconds). */
const BLOCK_FRAMES = 250;
const OUT = samplesPerFrame(SESSION_RATE);

export interface Relay extends MediaReceiver {
  /** Frames dropped to keep the delay bounded. */
  readonly dropped: number;
}

export function relayTo(to: MediaLeg): Relay {
  let resampler: Resampler | null = null;
  let dropped = 0;
  let frames = 0;
  let blockMin = Infinity;
  let lastBlockMin = Infinity;
  /** Whether the other leg's queue has grown too far above its recent lowest. */
  const grown = (queued: number): boolean => {
    blockMin = Math.min(blockMin, queued);
    frames += 1;
    if (frames % BLOCK_FRAMES === 0) {
      lastBlockMin = blockMin;
      blockMin = Infinity;
    }
    return queued - Math.min(blockMin, lastBlockMin) > MAX_GROWTH_MS;
  };
  const convert = (frame: AudioFrame): AudioFrame | null => {
    if (frame.sampleRate === SESSION_RATE) return frame;
    if (resampler?.from !== frame.sampleRate)
      resampler = new Resampler(frame.sampleRate as SampleRate, SESSION_RATE);
    // A new buffer each frame: the leg's queue keeps the frame until it moves to the wire.
    const samples = new Int16Array(OUT);
    const written = resampler.process(frame.samples, samples);
    return written === OUT ? { samples, sampleRate: SESSION_RATE, at: frame.at } : null;
  };
  return {
    get dropped() {
      return dropped;
    },
    audio(frame) {
      const converted = convert(frame);
      if (!converted) return;
      if (grown(to.queuedMs)) {
        dropped += 1;
        return;
      }
      to.play(converted);
    },
    dtmf(digit) {
      to.sendDtmf(digit).catch(() => undefined);
    },
  };
}
