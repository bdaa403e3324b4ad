// Small text tools shared by the offline case generator and the heuristic judge
// (docs/builtin-model.md, "Simulation case generation" and "Simulation judge"). English only,
// deliberately plain: every rule has to be explainable in one line of the docs.

/** Lowercase, typographic apostrophes made plain, whitespace collapsed. */
export function normalize(text: string): string {
  return text.toLowerCase().replace(/[’‘`]/g, "'").replace(/\s+/g, ' ').trim();
}

/** Lowercase words (apostrophes kept: "don't"). */
export function words(text: string): string[] {
  // A possessive is the word itself: "caller's" → "caller".
  return (normalize(text).match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? []).map((w) => w.replace(/'s$/, ''));
}

/** A crude stem, so "booking" meets "book" and "homes" meets "home". */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Function words, and the words every criterion is framed with ("the agent asks the caller..."). */
export const STOP_WORDS = new Set(
  (
    'a an the and or but if whether of to in on at for from by with about into as is are was were be ' +
    'been being do does did have has had will would can could should may might must shall it its ' +
    'this that these those there their they them theirs he she his her him you your yours i me my we ' +
    'our us who whom what which when where why how any all some each every more most other such only ' +
    'own same so than too very just also then first next finally always once please ' +
    "they're you're it's i'm don't doesn't isn't " +
    // the frame of a criterion: who does what, not what it is about
    'agent agents caller callers customer customers user users person bot assistant call conversation ' +
    'ask asks asked asking record records recorded collect collects note notes gets get give gives ' +
    'provide provides answer answers answered question questions about mention mentions explain ' +
    'explains tell tells say says said help helps helping offer offers confirm confirms correctly ' +
    'clearly properly successfully step script follow follows following make makes sure during ' +
    'reason goal goals request requests respond responds deal deals handle handles'
  ).split(' '),
);

const NEGATIONS = new Set(['not', 'never', 'no', "doesn't", "don't", "didn't", 'without', 'avoid', 'avoids']);

/** Stems of the words that carry meaning (no stop words, no negations, no one-letter words). */
export function contentStems(text: string): string[] {
  const seen = new Set<string>();
  for (const w of words(text)) {
    if (w.length > 1 && !STOP_WORDS.has(w) && !NEGATIONS.has(w)) seen.add(stem(w));
  }
  return [...seen];
}

/** The text says something must not happen ("does not", "never", "without"). */
export function isNegated(text: string): boolean {
  return words(text).some((w) => NEGATIONS.has(w));
}

/**
 * Whether `target` (a stem) occurs among `haystack` stems: one is a prefix of the other and the
 * shorter has at least three letters (or they are equal), so "open" meets "opening".
 */
export function stemMatches(target: string, haystack: ReadonlySet<string>): boolean {
  if (haystack.has(target)) return true;
  for (const s of haystack) {
    const [short, long] = s.length <= target.length ? [s, target] : [target, s];
    if (short.length >= 4 && long.startsWith(short)) return true;
  }
  return false;
}

/** Every word's stem in a text, for matching against. */
export function stemSet(text: string): Set<string> {
  return new Set(words(text).map(stem));
}

/** Cuts at a word boundary and adds an ellipsis when longer than `max`. */
export function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** "household_size" → "household size". */
export function humanize(identifier: string): string {
  return identifier
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

export const capitalize = (s: string): string => (s ? s.charAt(0).toUpperCase() + s.slice(1) : s);
const lowerFirst = (s: string): string =>
  s && !/^[A-Z]{2}/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s;

/** "book their appointment" → "book your appointment": the agent's view said to the caller. */
export function toCaller(text: string): string {
  return text
    .replace(/\bthemselves\b/gi, 'yourself')
    .replace(/\btheir\b/gi, 'your')
    .replace(/\bthem\b/gi, 'you')
    .replace(/\bthey are\b/gi, 'you are')
    .replace(/\bthey\b/gi, 'you')
    .trim();
}

/** Drops trailing punctuation and lowercases the first letter (for use inside a sentence). */
export function phrase(text: string): string {
  return lowerFirst(
    text
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.!?;:,\s]+$/, ''),
  );
}
