import { SESSION_RATE, samplesPerFrame, type AudioFrame, type SampleRate } from './frame.ts';
import type { MediaLeg, MediaReceiver } from './leg.ts';
import { Resampler } from './resampler.ts';

// One direction of a bridge between two legs (a warm transfer): what one far end says is played
// to the other, and its keys are sent on. Legs take audio at SESSION_RATE, so frames of another
// rate (a SIP leg hands the session its 8 kHz) are converted here. Two clocks never run exactly
// together: when the far side's queue grows past MAX_QUEUE_MS, a frame is dropped rather than let
// the delay grow for the rest of the call.

const MAX_QUEUE_MS = 120;
const OUT = samplesPerFrame(SESSION_RATE);

export interface Relay extends MediaReceiver {
  /** Frames dropped to keep the delay bounded. */
  readonly dropped: number;
}

export function relayTo(to: MediaLeg): Relay {
  let resampler: Resampler | null = null;
  let dropped = 0;
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
      if (to.queuedMs >= MAX_QUEUE_MS) {
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
