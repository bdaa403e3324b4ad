// Text of one segment, cut into the pieces flite synthesizes one at a time. The voice session
// flushes per sentence, so a segment is usually one piece; a long flush (a paragraph at
// endInput) is cut at sentence ends so its first audio comes after its first sentence, not after
// all of it, and an abort waits for at most one piece.

/** A piece longer than this is cut at a clause (or, failing that, a word) boundary. */
export const MAX_PIECE_CHARS = 300;

// "Dr. Smith" is one sentence: a period after these does not end one.
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'jr',
  'sr',
  'prof',
  'vs',
  'etc',
  'no',
  'mt',
  'ft',
]);

/** Printable text, whitespace collapsed: flite gets it as one argument. */
export function cleanText(text: string): string {
  // eslint-disable-next-line no-control-regex
  const controls = /[\u0000-\u001f\u007f]+/g;
  return text.replace(controls, ' ').replace(/\s+/g, ' ').trim();
}

/** The sentences of `text`, each at most MAX_PIECE_CHARS long. */
export function splitForSynthesis(text: string): string[] {
  const clean = cleanText(text);
  if (!clean) return [];
  const sentences: string[] = [];
  let start = 0;
  const boundary = /[.!?]+["')\]]*\s+(?=["'([]?[A-Z0-9])/g;
  for (let m = boundary.exec(clean); m; m = boundary.exec(clean)) {
    const word = /([A-Za-z]+)\.$/.exec(clean.slice(start, m.index + 1))?.[1]?.toLowerCase();
    if (m[0].startsWith('.') && !m[0].startsWith('..') && word && ABBREVIATIONS.has(word)) continue;
    const end = m.index + m[0].length;
    sentences.push(clean.slice(start, end).trim());
    start = end;
  }
  sentences.push(clean.slice(start).trim());
  return sentences.filter(Boolean).flatMap(cutLong);
}

function cutLong(sentence: string): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_PIECE_CHARS) {
    const head = rest.slice(0, MAX_PIECE_CHARS);
    const clause = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '), head.lastIndexOf(': '));
    const cut = clause > MAX_PIECE_CHARS / 3 ? clause + 1 : head.lastIndexOf(' ');
    const at = cut > 0 ? cut : MAX_PIECE_CHARS;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}
