// Splits the model's streamed text into pieces for the synthesizer: at sentence ends, so each
// piece is spoken as soon as it is complete; also at a comma (or ; :) once a piece has run long,
// so the first audio of a long sentence is early; and at a space past a hard maximum. A `.` is
// not an end inside a number ("3.5"), after a known abbreviation ("Dr.", "e.g.") or an initial
// ("J. Smith"); whether a `.` ends a sentence is decided when the next character arrives.

/** A comma splits a piece at least this long. */
export const COMMA_SPLIT_CHARS = 60;
/** A piece this long is split at the next space even without punctuation. */
export const HARD_SPLIT_CHARS = 250;

const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'a.m',
  'p.m',
  'approx',
  'dept',
  'est',
  'fig',
  'gen',
  'gov',
  'lt',
  'col',
  'capt',
  'sgt',
  'rev',
  'ave',
  'blvd',
]);
const ENDS = '.!?…';
const CLOSERS = '"\'”’)]';
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

export interface SentenceChunker {
  /** Adds streamed text; returns the pieces it completed (possibly none). */
  push(text: string): string[];
  /** The rest, trimmed; null when nothing is left. */
  flush(): string | null;
}

/** The word just before index `dot` (letters and inner dots), lowercased. */
function wordBefore(text: string, dot: number): string {
  let i = dot - 1;
  while (i >= 0 && /[\p{L}.]/u.test(text[i] ?? '')) i -= 1;
  return text.slice(i + 1, dot).toLowerCase();
}

function isAbbreviation(text: string, dot: number): boolean {
  const word = wordBefore(text, dot);
  if (word === '') return false;
  if (ABBREVIATIONS.has(word)) return true;
  // A single capital letter is an initial ("J. Smith"); "I." is too rare to matter.
  const raw = text.slice(dot - word.length, dot);
  return raw.length === 1 && /\p{Lu}/u.test(raw);
}

export function createSentenceChunker(): SentenceChunker {
  let buffer = '';
  // Characters before this index were already judged not to end a piece.
  let scanned = 0;

  function take(end: number): string | null {
    const piece = buffer.slice(0, end).trim();
    buffer = buffer.slice(end);
    scanned = 0;
    return piece === '' ? null : piece;
  }

  /** Where a piece ends if it ends at `i`; -1 for no; -2 for "wait for more text". */
  function endAt(i: number): number {
    const c = buffer[i] ?? '';
    if (c === '\n') return i + 1;
    if (ENDS.includes(c)) {
      let j = i + 1;
      while (j < buffer.length && (ENDS.includes(buffer[j] ?? '') || CLOSERS.includes(buffer[j] ?? '')))
        j += 1;
      if (j >= buffer.length) return -2;
      if (!isSpace(buffer[j])) return -1;
      if (c === '.' && isAbbreviation(buffer, i)) return -1;
      return j;
    }
    if ((c === ',' || c === ';' || c === ':') && i + 1 >= COMMA_SPLIT_CHARS) {
      if (i + 1 >= buffer.length) return -2;
      return isSpace(buffer[i + 1]) ? i + 1 : -1;
    }
    if (isSpace(c) && i >= HARD_SPLIT_CHARS) return i;
    return -1;
  }

  return {
    push(text) {
      buffer += text;
      const pieces: string[] = [];
      for (let i = scanned; i < buffer.length; i += 1) {
        const end = endAt(i);
        if (end === -2) break;
        if (end >= 0) {
          const piece = take(end);
          if (piece) pieces.push(piece);
          i = -1;
          continue;
        }
        scanned = i + 1;
      }
      return pieces;
    },
    flush() {
      const rest = buffer.trim();
      buffer = '';
      scanned = 0;
      return rest === '' ? null : rest;
    },
  };
}
