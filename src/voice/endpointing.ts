import { isCompleteUtterance } from './complete-utterance.ts';
import type { PatienceLevel } from './settings.ts';

// How long after the caller stops speaking (VAD speech end) the turn is taken as finished and the
// STT is flushed (docs/voice.md, "Turn-taking"). `patience_level` picks the wait; what the
// recognizer has heard so far (its latest partial, or the finals of the turn) adapts it between
// documented bounds: a complete answer (a question, a short yes/no/thanks) gets half of it, a
// line that trails off ("and", "so", "um", a comma or a dash) gets 1.75 times it,
// anything else the wait itself. Without partials (PocketSphinx), nothing is known of the words
// yet at the end of the first utterance of a turn: it gets the wait itself.

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

/** Whether `text` stops mid-thought: on a comma or dash, or on a word that needs more after it. */
export function isTrailingOff(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '') return false;
  if (/[,;:\-–—]$/.test(trimmed)) return true;
  if (/[.!?]$/.test(trimmed)) return false;
  const last = trimmed
    .toLowerCase()
    .match(/[\p{L}\p{N}'’]+$/u)?.[0]
    ?.replace(/’/g, "'");
  return last !== undefined && TRAILING_WORDS.has(last);
}

export function endpointDelayMs(patience: PatienceLevel, latestTranscript: string): number {
  const full = PATIENCE_MS[patience];
  if (isCompleteUtterance(latestTranscript)) return Math.round(full * COMPLETE_FACTOR);
  if (isTrailingOff(latestTranscript)) return Math.round(full * TRAILING_FACTOR);
  return full;
}
