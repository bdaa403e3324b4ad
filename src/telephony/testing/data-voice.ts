import { createDataSpeechReader, dataSpeechFrames, type AudioFrame } from '../../media/index.ts';
import type { FarEndVoice } from '../sim/index.ts';

// A far-end voice that speaks and hears data speech (src/media/data-speech.ts): exact words
// through real audio frames, at no cost, for the carrier contract and the sim's own tests.

/** Frames of silence after speech that end a line heard (a sentence pause is shorter). */
const END_OF_LINE_FRAMES = 10;

export function createDataVoice(): FarEndVoice {
  return {
    async *speak(text) {
      yield* dataSpeechFrames(text);
    },
    listen(heard, signal) {
      const reader = createDataSpeechReader();
      let silent = 0;
      return {
        push(frame: AudioFrame) {
          if (signal.aborted) return;
          reader.push(frame);
          const quiet = (frame.samples[frame.samples.length >> 1] ?? 0) === 0;
          silent = quiet ? silent + 1 : 0;
          if (silent === END_OF_LINE_FRAMES && reader.text !== '') {
            const text = reader.text;
            reader.reset();
            heard(text);
          }
        },
      };
    },
  };
}

/** Our side of a data-speech conversation on a media leg: what we heard, line by line. */
export function createDataEar() {
  const reader = createDataSpeechReader();
  const lines: string[] = [];
  let silent = 0;
  let waiters: { count: number; resolve: () => void }[] = [];
  return {
    lines,
    audio(frame: AudioFrame) {
      reader.push(frame);
      const quiet = (frame.samples[frame.samples.length >> 1] ?? 0) === 0;
      silent = quiet ? silent + 1 : 0;
      if (silent === END_OF_LINE_FRAMES && reader.text !== '') {
        lines.push(reader.text);
        reader.reset();
        waiters = waiters.filter((w) => (lines.length >= w.count ? (w.resolve(), false) : true));
      }
    },
    dtmf() {},
    /** Takes what was heard since the last line as a line (the call ended right after it). */
    flush() {
      if (reader.text !== '') lines.push(reader.text);
      reader.reset();
    },
    /** Resolves once `count` lines have been heard. */
    heard(count: number): Promise<void> {
      if (lines.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
}
