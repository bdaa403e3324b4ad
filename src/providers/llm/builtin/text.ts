// Word-level helpers shared by the builtin dialogue manager: splitting text into words and
// sentences, a crude stemmer, stop words, a few synonym groups ("concepts") and person swapping
// (turning instructions about "the caller" into words said to the caller).

/** Lowercased words; apostrophes kept inside words (`don't`, `caller's`); currency signs kept. */
export function words(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[’‘]/g, "'")
      .match(/[a-z0-9]+(?:'[a-z]+)?|[$£€]/g) ?? []
  );
}

/**
 * Recent answers of `normalize`: every turn compares the conversation's earlier lines with the
 * agent's questions again, so the same few lines are normalized over and over (a campaign runs
 * thousands of these conversations at once). Cleared when full.
 */
const normalized = new Map<string, string>();
const NORMALIZED_MAX = 4096;

/** Lowercase, punctuation-free, single-spaced text; used to compare lines. */
export function normalize(text: string): string {
  const known = normalized.get(text);
  if (known !== undefined) return known;
  const result = words(text).join(' ');
  if (normalized.size >= NORMALIZED_MAX) normalized.clear();
  normalized.set(text, result);
  return result;
}

/** Splits text into sentences (on . ! ? and line breaks), trimmed, without list markers. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, '').trim())
    .filter((s) => s !== '');
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function lowerFirst(text: string): string {
  // Keep "I" and proper names (a capital followed by another capital, or a name-like word) alone.
  if (/^(?:I\b|I'|[A-Z]{2})/.test(text)) return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** Ends the text with the given mark unless it already ends with punctuation. */
export function ending(text: string, mark = '.'): string {
  const t = text.trim().replace(/[,;:]+$/, '');
  return /[.!?]$/.test(t) ? t : t + mark;
}

/** The first `max` words of the text (kept as written), ending with a full stop when cut. */
export function limitWords(text: string, max: number): string {
  const parts = text.trim().split(/\s+/);
  if (parts.length <= max) return text.trim();
  return ending(
    parts
      .slice(0, max)
      .join(' ')
      .replace(/[,;:–-]+$/, ''),
  );
}

/** "a, b or c" */
export function listOf(items: string[], conjunction = 'or'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1] ?? ''}`;
}

export const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his i if in into is it its itself just let me more most ' +
    'my myself nor of off on once only or other our ours ourselves out over own same she should so some ' +
    'such than that the their theirs them themselves then there these they this those through to too ' +
    'under until up very was we were what which while who whom why will with would you your yours ' +
    'yourself yourselves also get got go going know like please thanks thank tell want wanted need ' +
    "okay ok yes yeah yep sure hi hello hey um uh well oh really actually maybe i'm i've i'd i'll " +
    "you're you've you'd you'll we're we've it's that's what's there's here's let's how when where " +
    'much many may might must shall one two lot bit kind sort thing things anything something say said'
  ).split(' '),
);

/** Words that turn a statement around; they become the token `#not`. */
export function isNegation(word: string): boolean {
  return word === 'not' || word === 'never' || word === 'cannot' || word.endsWith("n't");
}

// Synonym groups: any of these words (before stemming) stands for the group's token, so that
// "when are you open" meets "opening hours" and "how much" meets "costs $80".
const CONCEPTS: Record<string, string[]> = {
  '#hours': ['open', 'opens', 'opening', 'hours', 'hour', 'close', 'closes', 'closing', 'closed'],
  '#where': [
    'where',
    'address',
    'located',
    'location',
    'locations',
    'directions',
    'street',
    'find',
    'situated',
  ],
  '#price': [
    'cost',
    'costs',
    'price',
    'prices',
    'pricing',
    'priced',
    'fee',
    'fees',
    'charge',
    'charges',
    'much',
    'pay',
    'expensive',
    'cheap',
    'afford',
    'rate',
    'rates',
    '$',
    '£',
    '€',
  ],
  '#talk': ['talk', 'speak', 'chat'],
  '#human': ['human', 'person', 'agent', 'representative', 'someone', 'manager', 'operator', 'staff'],
  '#remove': ['remove', 'removed', 'removing', 'unsubscribe', 'unsubscribed', 'delete', 'deleted', 'erase'],
  '#list': ['list', 'lists', 'database', 'records', 'contacts', 'register'],
  '#busy': ['busy', 'occupied', 'driving', 'working'],
  '#email': ['email', 'e-mail', 'mail', 'emails'],
  '#phone': ['phone', 'telephone', 'mobile', 'cell'],
};
const CONCEPT_OF = new Map<string, string>();
for (const [concept, members] of Object.entries(CONCEPTS))
  for (const member of members) CONCEPT_OF.set(member, concept);

/** A crude suffix-stripping stemmer: `removed`, `removing`, `remove` → `remov`. */
export function stem(word: string): string {
  let w = word.replace(/'s$/, '');
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

export interface TokenOptions {
  /** Negations become `#not` instead of being dropped. */
  negation?: boolean;
  /** Extra words to drop (besides the stop words). */
  ignore?: ReadonlySet<string>;
}

/**
 * The meaningful tokens of a text: synonym-group tokens (`#price`) and stems of the words that
 * are neither stop words nor ignored. Order of first appearance, no duplicates.
 */
export function contentTokens(text: string, options: TokenOptions = {}): string[] {
  const out = new Set<string>();
  for (const word of words(text)) {
    if (isNegation(word)) {
      if (options.negation) out.add('#not');
      continue;
    }
    const concept = CONCEPT_OF.get(word);
    if (concept) {
      out.add(concept);
      continue;
    }
    if (STOP_WORDS.has(word) || options.ignore?.has(word)) continue;
    out.add(stem(word));
  }
  return [...out];
}

const PERSON_NOUNS =
  'caller|callers|customer|customers|client|clients|user|users|patient|patients|homeowner|homeowners|' +
  'person|prospect|prospects|lead|leads|contact|visitor|visitors|guest|guests|member|members|subscriber|' +
  'subscribers|reader|readers|buyer|buyers|tenant|tenants|student|students|applicant|applicants';
export const PERSON_NOUN_RE = new RegExp(`^(?:${PERSON_NOUNS})$`);
const PERSON_PLURAL_RE = new RegExp(
  `^(?:${PERSON_NOUNS.split('|')
    .filter((n) => n.endsWith('s'))
    .join('|')})$`,
);

const SUBJECT_CONTEXT = new Set([
  '',
  'if',
  'whether',
  'that',
  'when',
  'and',
  'or',
  'so',
  'because',
  'while',
  'before',
  'after',
  'until',
  'unless',
  'what',
  'where',
  'how',
  'why',
  'which',
]);

function agreeWithYou(verb: string): string {
  const irregular: Record<string, string> = {
    is: 'are',
    was: 'were',
    has: 'have',
    does: 'do',
    "doesn't": "don't",
    "isn't": "aren't",
    "wasn't": "weren't",
    "hasn't": "haven't",
  };
  const fixed = irregular[verb];
  if (fixed) return fixed;
  if (/^[a-z]+(?:ch|sh|ss|x|o)es$/.test(verb)) return verb.slice(0, -2);
  if (/^[a-z]+[^aeiou]ies$/.test(verb)) return verb.slice(0, -3) + 'y';
  if (/^[a-z]{3,}[^su']s$/.test(verb)) return verb.slice(0, -1);
  return verb;
}

/**
 * Rewrites an instruction's point of view for saying it to the caller: the caller (they, them,
 * their, "the caller") becomes "you", and the agent ("you", "your") becomes "I"/"me"/"my".
 * "Ask if they own their home" → "Ask if you own your home".
 */
export function swapPerson(text: string): string {
  const tokens = text.split(/(\s+)/);
  const out: string[] = [];
  let lastWord = '';
  let agreeNext = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? '';
    if (/^\s*$/.test(token)) {
      out.push(token);
      continue;
    }
    const match = /^([A-Za-z']+)(.*)$/.exec(token);
    if (!match) {
      out.push(token);
      lastWord = token.toLowerCase();
      continue;
    }
    const word = match[1] ?? '';
    const rest = match[2] ?? '';
    const lower = word.toLowerCase();
    let replaced: string | undefined;
    if (agreeNext) {
      replaced = agreeWithYou(lower);
      agreeNext = false;
    } else if (lower === 'they' || lower === 'them') replaced = 'you';
    else if (lower === "they're") replaced = "you're";
    else if (lower === "they've") replaced = "you've";
    else if (lower === "they'd") replaced = "you'd";
    else if (lower === "they'll") replaced = "you'll";
    else if (lower === 'their') replaced = 'your';
    else if (PERSON_PLURAL_RE.test(lower) && lastWord !== 'the') replaced = 'you';
    else if (lower === 'theirs') replaced = 'yours';
    else if (lower === 'themselves' || lower === 'themself') replaced = 'yourself';
    else if (lower === 'you') replaced = SUBJECT_CONTEXT.has(lastWord) ? 'I' : 'me';
    else if (lower === 'your') replaced = 'my';
    else if (lower === 'yours') replaced = 'mine';
    else if (lower === 'yourself') replaced = 'myself';
    else if (lower === "you're") replaced = "I'm";
    else if (lower === "you've") replaced = "I've";
    else if (lower === "you'll") replaced = "I'll";
    else if (lower === "you'd") replaced = "I'd";
    else if (lower === 'the' || lower === 'a' || lower === 'an') {
      // "the caller('s)" → "you"/"your"
      const next = tokens[i + 2] ?? '';
      const nextMatch = /^([A-Za-z]+)('s|s')?(.*)$/.exec(next);
      if (nextMatch && PERSON_NOUN_RE.test((nextMatch[1] ?? '').toLowerCase())) {
        const possessive = nextMatch[2] !== undefined;
        out.push((possessive ? 'your' : 'you') + (nextMatch[3] ?? ''));
        i += 2;
        lastWord = possessive ? 'your' : 'you';
        agreeNext = !possessive && (nextMatch[3] ?? '') === '';
        continue;
      }
    }
    if (replaced === undefined) {
      out.push(token);
      lastWord = lower;
      continue;
    }
    if (replaced === 'I' && /^(are|were)$/.test((tokens[i + 2] ?? '').toLowerCase())) {
      tokens[i + 2] = (tokens[i + 2] ?? '').toLowerCase() === 'are' ? 'am' : 'was';
    }
    out.push(replaced + rest);
    lastWord = replaced.toLowerCase();
  }
  return out.join('');
}
