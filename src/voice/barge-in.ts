import { BARGE_IN_FINAL_WORDS_AT_ZERO } from './limits.ts';

// When caller speech cuts the agent off (DESIGN.md section 5). With `min_words_to_interrupt` N
// > 0 the caller must have said N words that are not backchannels ("mhm", "yeah", "okay"):
// counted on STT partials as they come when the STT gives them, else on the final. With 0, VAD speech of BARGE_IN_MIN_SPEECH_MS decides (session.ts arms
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

/**
 * Words a listener says to show it follows, not to take the turn (docs/voice.md, "Turn-taking"):
 * they never count towards an interruption, and a line of nothing else heard while the agent
 * talks is not a turn. "yes" and "no" are not among them: they answer questions.
 */
export const BACKCHANNEL_WORDS: ReadonlySet<string> = new Set([
  'mhm',
  'mm',
  'mmm',
  'hmm',
  'hm',
  'uh',
  'um',
  'uh-huh',
  'uhhuh',
  'ah',
  'aha',
  'oh',
  'yeah',
  'yep',
  'yup',
  'ok',
  'okay',
  'right',
  'sure',
  'alright',
  'cool',
  'got',
  'it',
  'see',
]);

/** What a callee says at pick-up: while the greeting plays, these are backchannels too. */
export const PICKUP_WORDS: ReadonlySet<string> = new Set(['hello', 'hi', 'hey', 'hiya', 'speaking']);

/** The words of `text` that are not backchannels (nor, with `pickup`, pick-up words). */
export function confirmedWords(text: string, pickup = false): number {
  let count = 0;
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []) {
    const bare = word.replace(/['’]/g, '');
    if (!BACKCHANNEL_WORDS.has(bare) && !(pickup && PICKUP_WORDS.has(bare))) count += 1;
  }
  return count;
}

/** Whether `text` says something (a word that is not a backchannel). */
export const saysSomething = (text: string, pickup = false): boolean => confirmedWords(text, pickup) > 0;

/** A partial transcript heard while the agent talks interrupts it now. */
export function partialInterrupts(minWords: number, partial: string): boolean {
  return minWords > 0 && confirmedWords(partial) >= minWords;
}

/** A final transcript heard while the agent talks is a turn (and interrupts), not a backchannel. */
export function finalInterrupts(minWords: number, text: string): boolean {
  return confirmedWords(text) >= (minWords > 0 ? minWords : BARGE_IN_FINAL_WORDS_AT_ZERO);
}
