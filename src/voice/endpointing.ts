import { isCompleteUtterance } from './complete-utterance.ts';
import type { PatienceLevel } from './settings.ts';

// How long after the caller stops speaking (VAD speech end) the turn is taken as finished and the
// STT is flushed (docs/voice.md, "Turn-taking"). `patience_level` picks the wait; what the
// recognizer has heard so far adapts it between documented bounds: a complete answer gets half of
// it, a line that trails off 1.75 times it. What counts depends on what was heard: a streaming
// recognizer's latest partial often lacks the word still being spoken, so only questions, short
// answers and conjunctions/fillers are read from it (anything else gets the wait itself); a final
// (a recognizer without partials is flushed at the speech end to get one) has every word, so a
// line ending on a function word trails off and one ending on any other word is complete.

export const PATIENCE_MS: Readonly<Record<PatienceLevel, number>> = { low: 400, medium: 800, high: 1400 };

/** The shortest and longest wait, as fractions of the patience level's. */
export const COMPLETE_FACTOR = 0.5;
export const TRAILING_FACTOR = 1.75;

/**
 * Words a speaker who is not done ends on: conjunctions and fillers. (Articles and prepositions
 * would say more, but a recognizer's latest partial often lacks the word being spoken, so a
 * finished "a table" reads as "a" for a moment: too often a false alarm.)
 */
const TRAILING_WORDS = new Set([
  'and',
  'but',
  'or',
  'so',
  'because',
  'cause',
  'then',
  'if',
  'um',
  'uh',
  'er',
  'erm',
  'hmm',
  'like',
]);

/**
 * More words a finished line does not end on, read only on finals (every word is there): articles,
 * prepositions, possessives, auxiliaries, subject pronouns, relatives, determiners, `not`, and
 * the fillers a recognizer spells otherwise ("I'd like to book a", "my number is", "and then I",
 * "do you have any").
 */
const FUNCTION_WORDS = new Set([
  ...'a an the to for with at on in of from about by into onto than as'.split(' '),
  ...'my your our their his her its'.split(' '),
  ...'is are was were am be been have has had do does did can could would will should shall may might must'.split(
    ' ',
  ),
  ...'i we they he she that which who whose when where not any some every each'.split(' '),
  ...'ah uhm mm'.split(' '),
  ...(
    "i'm i'd i'll i've we're we'll we'd they're it's that's there's you're he's she's " +
    "what's isn't wasn't don't doesn't didn't can't won't"
  ).split(' '),
]);

/** What the wait is decided on: a streaming partial, or a final with every word of the line. */
export type Heard = 'partial' | 'final';

function lastWord(text: string): string | undefined {
  return text
    .toLowerCase()
    .match(/[\p{L}\p{N}'’]+$/u)?.[0]
    ?.replace(/’/g, "'");
}

/** Whether `text` stops mid-thought: on a comma or dash, or on a word that needs more after it. */
export function isTrailingOff(text: string, heard: Heard = 'partial'): boolean {
  const trimmed = text.trim();
  if (trimmed === '') return false;
  if (/[,;:\-–—]$/.test(trimmed)) return true;
  if (/[.!?]$/.test(trimmed)) return false;
  const last = lastWord(trimmed);
  if (last === undefined) return false;
  return TRAILING_WORDS.has(last) || (heard === 'final' && FUNCTION_WORDS.has(last));
}

/**
 * The wait for `latestTranscript`. `completeFactor` is the complete line's share of the patience
 * wait: COMPLETE_FACTOR, or 1 in a call whose caller was cut off once (they pause mid-line).
 * `pitchHolds`: the caller's pitch stayed level at this pause, and they have been heard to let it
 * fall at the end of a line (pitch.ts); a line that reads as complete then waits the whole delay.
 */
export function endpointDelayMs(
  patience: PatienceLevel,
  latestTranscript: string,
  heard: Heard = 'partial',
  completeFactor: number = COMPLETE_FACTOR,
  pitchHolds = false,
): number {
  const full = PATIENCE_MS[patience];
  const complete = Math.round(full * (pitchHolds ? 1 : completeFactor));
  if (isCompleteUtterance(latestTranscript)) return complete;
  if (isTrailingOff(latestTranscript, heard)) return Math.round(full * TRAILING_FACTOR);
  if (heard === 'final' && latestTranscript.trim() !== '') return complete;
  return full;
}
