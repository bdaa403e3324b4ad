import { contentTokens, isNegation, words } from './text.ts';

// Matching the caller's words to the agent's custom end-call reasons. A reason is written about
// the caller ("the caller asks to be removed from the list"); its meaningful tokens (stems and
// synonym groups, negation kept as `#not`) are compared with the caller's. A few common ways of
// saying "take me off your list" are rewritten first.

// Words that describe who is speaking rather than what they want.
const REASON_NOISE = new Set(
  (
    'caller callers customer customers user users client clients prospect prospects lead leads contact ' +
    'homeowner homeowners recipient asks ask asked asking says say said states stated mentions mentioned ' +
    'indicates indicated requests request requested wants want wanted wishes wish would like tells told ' +
    'explicitly clearly expresses expressed express they them their be is are was were been being call'
  ).split(' '),
);

const REWRITES: [RegExp, string][] = [
  [/\btake (?:me|us|my number|our number|this number) off\b/gi, 'remove me from'],
  [
    /\b(?:do not|don't|dont|never|stop|quit) (?:ever )?(?:call|calling|ring|ringing|contact|contacting|phone|phoning)(?: me| us| this number| here)?(?: again| anymore| any more| ever again)?\b/gi,
    'remove me from your list',
  ],
  [
    /\b(?:put|add) (?:me|us|my number) (?:on|to) (?:your |the )?do not call list\b/gi,
    'remove me from your list',
  ],
  [/\bopt (?:me )?out\b/gi, 'remove me from your list'],
  [
    /\b(?:not|never) (?:to )?be (?:called|contacted|phoned|rung)(?: again| anymore| any more)?\b/gi,
    'to be removed from the list',
  ],
];

/** Tokens of the few words right after each negation: "don't want to be removed" → #remove. */
function negatedTokens(line: string): Set<string> {
  const list = words(line);
  const out = new Set<string>();
  list.forEach((word, i) => {
    if (isNegation(word)) for (const t of contentTokens(list.slice(i + 1, i + 5).join(' '))) out.add(t);
  });
  return out;
}

function rewrite(line: string): string {
  return REWRITES.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), line);
}

export interface ReasonMatch {
  reason: string;
  ratio: number;
}

/**
 * The custom reason the caller's line expresses, exactly as given, or undefined. A reason matches
 * when the line holds at least half of its tokens (and at least two of them, unless it has only
 * one); a negated reason needs a negation in the line, and the line must not negate the words of
 * a reason that is not negated.
 */
export function matchReason(line: string, reasons: readonly string[]): string | undefined {
  const said = new Set(contentTokens(rewrite(line), { negation: true }));
  const negated = negatedTokens(rewrite(line));
  let best: ReasonMatch | undefined;
  for (const reason of reasons) {
    const tokens = contentTokens(rewrite(reason), { negation: true, ignore: REASON_NOISE });
    const meaningful = tokens.filter((t) => t !== '#not');
    if (meaningful.length === 0) continue;
    // "not interested" needs a negation; "removed from the list" must not be negated.
    if (tokens.includes('#not') ? !said.has('#not') : meaningful.some((t) => negated.has(t))) continue;
    const matched = meaningful.filter((t) => said.has(t)).length;
    const ratio = matched / meaningful.length;
    if (matched < Math.min(2, meaningful.length) || ratio < 0.5) continue;
    if (!best || ratio > best.ratio) best = { reason, ratio };
  }
  return best?.reason;
}
