import { BARGE_IN_FINAL_WORDS_AT_ZERO } from './limits.ts';

// When caller speech cuts the agent off (DESIGN.md section 5). With `min_words_to_interrupt` N
// > 0 the caller must have said N words: counted on STT partials as they come when the STT gives
// them, else on the final. With 0, VAD speech of BARGE_IN_MIN_SPEECH_MS decides (session.ts arms
// that timer), and a shorter utterance still counts if its final has enough words to be more
// than a backchannel ("yeah", "mhm").

export function countWords(text: string): number {
  let count = 0;
  let inWord = false;
  for (const char of text) {
    const letter = /[\p{L}\p{N}]/u.test(char);
    if (letter && !inWord) count += 1;
    inWord = letter || (inWord && (char === "'" || char === '’' || char === '-'));
  }
  return count;
}

/** A partial transcript heard while the agent talks interrupts it now. */
export function partialInterrupts(minWords: number, partial: string): boolean {
  return minWords > 0 && countWords(partial) >= minWords;
}

/** A final transcript heard while the agent talks is a turn (and interrupts), not a backchannel. */
export function finalInterrupts(minWords: number, text: string): boolean {
  return countWords(text) >= (minWords > 0 ? minWords : BARGE_IN_FINAL_WORDS_AT_ZERO);
}
