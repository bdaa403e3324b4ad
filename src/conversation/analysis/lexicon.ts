// Word lists and small text tools of the heuristic judge (docs/builtin-model.md, "Post-call
// analysis"). They are deliberately short and plain: the heuristic is a stand-in for a real
// model, and every rule has to be explainable in one line of the docs.

/** Lowercase, typographic apostrophes made plain, whitespace collapsed. */
export function normalize(text: string): string {
  return text.toLowerCase().replace(/[’‘`]/g, "'").replace(/\s+/g, ' ').trim();
}

/** Lowercase words (apostrophes kept: "don't"). */
export function words(text: string): string[] {
  return normalize(text).match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? [];
}

/** A crude stem, so "booking" meets "book" and "homes" meets "home". */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const STOP = new Set(
  (
    'a an the and or but if whether of to in on at for from by with about into as is are was were be ' +
    'been being do does did have has had will would can could should may might must shall it its ' +
    'this that these those there their they them theirs he she his her him you your yours i me my we ' +
    'our us who whom what which when where why how not no yes any all some each every more most ' +
    'other such only own same so than too very just also then first next finally always never ' +
    'caller customer user person people client lead them politely please ' +
    "they're you're it's don't doesn't isn't"
  ).split(' '),
);

/** Stems of the words that carry meaning (no stop words, no one-letter words). */
export function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
}

/** The caller asks not to be contacted again. */
export const OPT_OUT =
  /\b(?:stop (?:calling|texting|messaging|contacting)|unsubscribe|(?:don't|do not|never) (?:ever )?(?:call|text|contact) (?:me|us|this number|here|again|back)|remove me|take me off|opt(?:-| )?out|no more calls|lose my number|delete my number|do not call list)\b/;

/** A yes, agreement or consent. */
export const AFFIRMATIVE =
  /\b(?:yes|yeah|yep|yup|sure|absolutely|definitely|of course|sounds good|sounds great|that works|works for me|i'm interested|i am interested|sign me up|let's do it|please do|go ahead|okay|ok|perfect|i'd like|i would like|i want)\b/;

const NEGATORS = new Set(['not', 'never', 'no', "don't", "didn't", "isn't", "wasn't", "doesn't", "aren't"]);

const POSITIVE_WORDS = new Set(
  (
    'thanks thank great perfect wonderful awesome excellent love lovely appreciate appreciated ' +
    'helpful happy glad nice amazing fantastic good pleased brilliant cool'
  ).split(' '),
);

const NEGATIVE_WORDS = new Set(
  (
    'angry annoyed annoying terrible awful horrible hate ridiculous stupid useless scam waste ' +
    'frustrated frustrating upset rude idiot idiots worst disappointed disappointing unacceptable ' +
    'complaint pathetic damn hell crap fuck fucking shit bullshit'
  ).split(' '),
);

const NEGATIVE_PHRASES =
  /\b(?:shut up|leave me alone|go away|waste of (?:my )?time|get lost|piss off|not happy|not helpful|not good|sick of|fed up)\b/g;

/** Counts of positive and negative markers in a line; a negated positive counts as negative. */
export function sentimentMarkers(text: string): { positive: number; negative: number } {
  const norm = normalize(text);
  let positive = 0;
  let negative = (norm.match(NEGATIVE_PHRASES) ?? []).length + (OPT_OUT.test(norm) ? 1 : 0);
  // Phrases already counted are taken out so "not happy" is not also one positive word.
  const list = words(norm.replace(NEGATIVE_PHRASES, ' '));
  list.forEach((w, i) => {
    const negated = [list[i - 1], list[i - 2]].some((p) => p !== undefined && NEGATORS.has(p));
    if (POSITIVE_WORDS.has(w)) {
      if (negated) negative++;
      else positive++;
    } else if (NEGATIVE_WORDS.has(w) && !negated) negative++;
  });
  return { positive, negative };
}

/** What an agent must never say to a caller. */
export const AGENT_RUDE =
  /\b(?:shut up|stupid|idiot|dumb|whatever|calm down|not my problem|i don't care|your problem|fuck|fucking|shit|damn)\b/;

/** Courtesy an agent usually shows. */
export const AGENT_COURTESY =
  /\b(?:thanks|thank you|please|great|glad|happy to|welcome|sorry|appreciate|of course|no problem|wonderful|perfect)\b/;

/** The agent broke character as a language model. */
export const AI_BREAK =
  /\b(?:as an ai(?: language)? model|as a (?:large )?language model|i am an ai language model|i'm an ai language model|large language model|i'm chatgpt|i am chatgpt|openai)\b/;

/** Kinds of objection, with what a prompt mentions when it says how to handle them. */
export const OBJECTIONS: readonly { kind: string; said: RegExp; inPrompt: RegExp }[] = [
  {
    kind: 'not interested',
    said: /\b(?:not interested|no thanks|no thank you|(?:don't|do not) need (?:it|that|this|one|any))\b/,
    inPrompt: /\b(?:not interested|interest|no thanks)/,
  },
  {
    kind: 'price',
    said: /\b(?:too expensive|(?:can't|cannot) afford|costs? too much|too much money|too pricey)\b/,
    inPrompt: /\b(?:expensive|price|pricing|cost|afford|budget)/,
  },
  {
    kind: 'timing',
    said: /\b(?:no time|too busy|i'm busy|i am busy|bad time|not (?:right )?now|call (?:me )?(?:back )?later)\b/,
    inPrompt: /\b(?:busy|bad time|call ?back|later|reschedul)/,
  },
  {
    kind: 'already has one',
    said: /\b(?:already (?:have|use|got|own)|happy with (?:my|our) current)\b/,
    inPrompt: /\b(?:already (?:have|use)|competitor|current provider)/,
  },
  {
    kind: 'trust',
    said: /\b(?:is this a scam|sounds like a scam|this is a scam|how did you get (?:my|this) number|who gave you (?:my|this) number)\b/,
    inPrompt: /\b(?:scam|trust|legit|how did you get|where we got)/,
  },
  {
    kind: 'needs to think',
    said: /\b(?:think about it|talk to my (?:wife|husband|partner|spouse)|need to discuss|not sure yet)\b/,
    inPrompt: /\b(?:think about|spouse|partner|discuss)/,
  },
];
