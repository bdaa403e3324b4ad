import type { VADEvent, VADOptions } from './types.ts';

// The timing rules every VAD shares (VADOptions): a detector judges stretches of audio (a 20 ms
// frame, a 32 ms model window) as speech or not; the segmenter turns those judgements into
// speech_start / speech_end events. Speech must last `minSpeechMs` to count, and only a silence of
// `minSilenceMs` ends it; both events carry the times of the speech itself, not of the decision.

export const DEFAULT_MIN_SPEECH_MS = 60;
export const DEFAULT_MIN_SILENCE_MS = 200;

export interface VADSegmenter {
  /**
   * One judged stretch of audio, from `start` to `end` ms, in time order. Returns the event it
   * confirms, if any (at most one: a stretch either confirms speech or confirms its end).
   */
  judge(start: number, end: number, speech: boolean): VADEvent | null;
  /** Whether speech has started and not yet ended. */
  readonly speaking: boolean;
}

export function createVADSegmenter(options: VADOptions = {}): VADSegmenter {
  const minSpeechMs = options.minSpeechMs ?? DEFAULT_MIN_SPEECH_MS;
  const minSilenceMs = options.minSilenceMs ?? DEFAULT_MIN_SILENCE_MS;
  let speaking = false;
  /** Start of the current run of speech stretches (a candidate until it lasts minSpeechMs). */
  let runStart = -1;
  let lastSpeechEnd = -1;
  let speechStart = -1;
  return {
    get speaking() {
      return speaking;
    },
    judge(start, end, speech) {
      if (speech) {
        if (runStart < 0) runStart = start;
        lastSpeechEnd = end;
        if (!speaking && end - runStart >= minSpeechMs) {
          speaking = true;
          speechStart = runStart;
          return { kind: 'speech_start', at: runStart };
        }
        return null;
      }
      if (!speaking) {
        // A candidate shorter than minSpeechMs followed by silence was noise.
        runStart = -1;
        return null;
      }
      if (end - lastSpeechEnd < minSilenceMs) return null;
      speaking = false;
      runStart = -1;
      return { kind: 'speech_end', at: lastSpeechEnd, speechMs: lastSpeechEnd - speechStart };
    },
  };
}
