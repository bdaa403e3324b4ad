import { SESSION_RATE, samplesPerFrame, type AudioFrame } from './frame.ts';

// What a caller on hold hears (a transfer's `enable_background_music`): a soft arpeggio made here
// once, so no audio file ships and nothing is fetched. Quiet (about -24 dBFS) and in the
// telephone band, so G.711 carries it without harshness. Frames are views of one loop: nothing is
// allocated per frame but the frame object.

const NOTE_MS = 300;
/** C major, F major, A minor, G major: four bars of four notes, an 4.8 s loop. */
const NOTES_HZ = [
  261.63, 329.63, 392.0, 523.25, 349.23, 440.0, 523.25, 698.46, 440.0, 523.25, 659.25, 880.0, 392.0, 493.88,
  587.33, 783.99,
];
const PEAK = 2000;
const FRAME = samplesPerFrame(SESSION_RATE);

let loop: Int16Array | null = null;

function renderLoop(): Int16Array {
  const noteSamples = (SESSION_RATE * NOTE_MS) / 1000;
  const out = new Int16Array(noteSamples * NOTES_HZ.length);
  NOTES_HZ.forEach((hz, n) => {
    for (let i = 0; i < noteSamples; i += 1) {
      const t = i / SESSION_RATE;
      // A quick attack and an exponential decay: a plucked, music-box sound.
      const envelope = Math.min(1, i / 160) * Math.exp(-t * 5);
      const tone = Math.sin(2 * Math.PI * hz * t) + 0.3 * Math.sin(2 * Math.PI * hz * 2 * t);
      out[n * noteSamples + i] = Math.round((PEAK * envelope * tone) / 1.3);
    }
  });
  return out;
}

/** The frames of the hold loop, one after another, forever. */
export function holdMusic(): { next(): AudioFrame } {
  loop ??= renderLoop();
  const samples = loop;
  const frames = samples.length / FRAME;
  let index = 0;
  return {
    next() {
      const from = (index % frames) * FRAME;
      index += 1;
      return { samples: samples.subarray(from, from + FRAME), sampleRate: SESSION_RATE, at: 0 };
    },
  };
}
