// When a caller's audio holds speech worth a decoder. A call sends frames all the time (silence,
// line noise, the caller listening), but the few decoder processes are shared by every call, so a
// stream leases one only while there is sound louder than the line's own noise. The pre-roll keeps
// the last few hundred ms so the first syllable, quieter than the gate, still reaches the decoder.

export interface SpeechGateOptions {
  /** A frame is voiced when its RMS is above this (default 150, about -47 dBFS)... */
  minRms?: number;
  /** ...and above this multiple of the line's noise floor (default 3, about +10 dB). */
  overFloor?: number;
}

export interface SpeechGate {
  /** Judges one frame of 16 kHz audio; updates the noise floor. */
  voiced(samples: Int16Array): boolean;
}

// The floor follows quieter audio at once and louder audio by at most 4 dB per second, so steady
// noise (a fan, a hiss) stops counting as speech after a few seconds, while speech, whose pauses
// between words pull the floor back down, keeps counting. It never goes below -70 dBFS (digital
// silence would otherwise pin it at zero).
const FLOOR_RISE_PER_SAMPLE = 10 ** (4 / 20 / 16000);
const FLOOR_MIN_RMS = 10;

export function createSpeechGate(options: SpeechGateOptions = {}): SpeechGate {
  const minRms = options.minRms ?? 150;
  const overFloor = options.overFloor ?? 3;
  let floor = minRms / overFloor;
  return {
    voiced(samples) {
      let sum = 0;
      for (let i = 0; i < samples.length; i += 1) {
        const v = samples[i] ?? 0;
        sum += v * v;
      }
      const rms = Math.sqrt(sum / Math.max(1, samples.length));
      const voiced = rms > minRms && rms > floor * overFloor;
      floor = Math.max(FLOOR_MIN_RMS, Math.min(rms, floor * FLOOR_RISE_PER_SAMPLE ** samples.length));
      return voiced;
    },
  };
}

export interface Preroll {
  /** Keeps the samples, dropping the oldest beyond the capacity. */
  push(samples: Int16Array): void;
  /** What is held, oldest first, as a new array; empties the ring. */
  take(): Int16Array;
}

/** A ring of the most recent `capacity` samples, allocated once. */
export function createPreroll(capacity: number): Preroll {
  const ring = new Int16Array(capacity);
  let end = 0;
  let held = 0;
  return {
    push(samples) {
      const from = Math.max(0, samples.length - capacity);
      for (let i = from; i < samples.length; i += 1) {
        ring[end] = samples[i] ?? 0;
        end = end + 1 === capacity ? 0 : end + 1;
      }
      held = Math.min(capacity, held + samples.length - from);
    },
    take() {
      const out = new Int16Array(held);
      const start = (end - held + capacity) % capacity;
      const first = Math.min(held, capacity - start);
      out.set(ring.subarray(start, start + first), 0);
      out.set(ring.subarray(0, held - first), first);
      held = 0;
      return out;
    },
  };
}
