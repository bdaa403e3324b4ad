import { contentTokens, normalize, stem, words } from './text.ts';

// Recognising what a caller's line is: yes / no / unsure, a pick among choices, goodbye, a
// greeting, thanks, a question, and a few stock questions about the call itself (who is this,
// what is this about, are you a robot, say that again, how are you).

export type YesNo = 'yes' | 'no' | 'unsure';

const UNSURE =
  /\b(?:not sure|unsure|i don't know|i do not know|dunno|no idea|maybe|perhaps|possibly|i guess|not certain|let me think|depends)\b/;
const NO_START = /^(?:no|nope|nah|negative|never)\b/;
const NO_PHRASE =
  /\b(?:not really|of course not|certainly not|absolutely not|definitely not|no thanks|no thank you|not at all|not now|rather not|i don't|i do not|i'm not|i am not|we don't|we do not|we're not|we are not|i haven't|i have not|we haven't|i wouldn't|i would not|i can't|i cannot|i won't|i will not|not interested|doesn't|don't think so)\b/;
const YES_START =
  /^(?:yes|yeah|yep|yup|ya|yea|sure|ok|okay|alright|all right|absolutely|definitely|certainly|correct|right|indeed|of course|affirmative|uh huh|mhm|mm hmm|please|go ahead|sounds good|sounds great|why not|true|exactly|great|perfect|fine)\b/;
const YES_PHRASE =
  /\b(?:yes|i do|i am|i have|i would|i will|we do|we are|we have|we would|that's right|that is right|that's correct|i'd like|i would like|i'd love|i'd be interested|i am interested|i'm interested|that would be great|let's do it|sounds good|go ahead)\b/;

/** Yes, no or unsure; undefined when the line is neither. */
export function yesNo(text: string): YesNo | undefined {
  const t = normalize(text);
  if (t === '') return undefined;
  // "okay, but I'm not interested": a filler before a refusal is not a yes.
  if (
    /^(?:ok|okay|alright|all right|well|so|hmm|um|uh)\b/.test(t) &&
    NO_PHRASE.test(t) &&
    !/\bdon't mind\b/.test(t)
  )
    return 'no';
  if (NO_START.test(t)) return 'no';
  if (YES_START.test(t) && !/^(?:right|fine|great|perfect|true) (?:now|away)\b/.test(t)) return 'yes';
  if (UNSURE.test(t)) return 'unsure';
  if (NO_PHRASE.test(t)) return 'no';
  if (YES_PHRASE.test(t)) return 'yes';
  return undefined;
}

const ORDINALS: Record<string, number> = {
  first: 0,
  '1st': 0,
  second: 1,
  '2nd': 1,
  third: 2,
  '3rd': 2,
  fourth: 3,
  '4th': 3,
  fifth: 4,
  '5th': 4,
};

/** The word before (skipping articles) is a negation: "not the basic one". */
function negatedBy(before: readonly string[]): boolean {
  const words = before.filter((w) => w !== '' && !/^(?:a|an|the)$/.test(w));
  const last = words[words.length - 1] ?? '';
  return /^(?:not|no|never)$|n't$/.test(last);
}

/** Which of the choices the line picks (returned exactly as given); undefined when unclear. */
export function matchChoice(text: string, choices: readonly string[]): string | undefined {
  const said = normalize(text);
  const saidWords = said.split(' ');
  const saidStems = new Set(saidWords.map(stem));
  type Hit = { choice: string; at: number; score: number; negated: boolean };
  const hits: Hit[] = [];
  for (const choice of choices) {
    const phrase = normalize(choice);
    if (phrase === '') continue;
    const at = ` ${said} `.indexOf(` ${phrase} `);
    if (at >= 0) {
      const before = said.slice(0, at).trim().split(' ');
      hits.push({ choice, at, score: 2 + phrase.length / 100, negated: negatedBy(before) });
      continue;
    }
    const tokens = contentTokens(choice);
    const stems = tokens.length > 0 ? tokens : phrase.split(' ').map(stem);
    const matched = stems.filter((s) => saidStems.has(s)).length;
    if (stems.length > 0 && matched / stems.length >= 0.5) {
      const first = saidWords.findIndex((w) => stems.includes(stem(w)));
      hits.push({
        choice,
        at: first,
        score: matched / stems.length,
        negated: negatedBy(saidWords.slice(0, first)),
      });
    }
  }
  const positive = hits.filter((h) => !h.negated);
  if (positive.length > 0) {
    positive.sort((a, b) => b.score - a.score || a.at - b.at);
    return positive[0]?.choice;
  }
  for (const [word, index] of Object.entries(ORDINALS))
    if (saidWords.includes(word) && index < choices.length) return choices[index];
  if (/\b(?:last|latter)\b/.test(said)) return choices[choices.length - 1];
  if (/\bformer\b/.test(said)) return choices[0];
  return undefined;
}

const GOODBYE = [
  /\b(?:good ?)?bye\b/,
  /\bbye bye\b/,
  /\bfarewell\b/,
  /\bsee (?:you|ya)\b/,
  /\btalk (?:to you )?(?:later|soon)\b/,
  /\bthat's (?:all|it)\b/,
  /\bthat is (?:all|it)\b/,
  /\bthat'll be all\b/,
  /\bthat will be all\b/,
  /\bhave a (?:nice|good|great|lovely|wonderful) (?:day|evening|one|night|weekend|afternoon|morning)\b/,
  /\btake care\b/,
  /\b(?:i've|i have|i) (?:got|gotta|need|have) to go\b/,
  /\bgotta go\b/,
  /\bi must go\b/,
  /\bgood night\b/,
  /\bnothing else\b/,
  /\bi'm done\b/,
  /\bwe're done\b/,
  /\bhang(?:ing)? up\b/,
  /\bciao\b/,
  /\bcheerio\b/,
];

/** The caller is ending the conversation ("bye", "that's all", "have a nice day"...). */
export function isGoodbye(text: string): boolean {
  if (text.includes('?')) return false;
  const t = normalize(text);
  return GOODBYE.some((pattern) => pattern.test(t));
}

const GREETING = /^(?:hi|hello|hey|hiya|howdy|greetings|yo|good (?:morning|afternoon|evening|day))\b/;
const FILLER = new Set([
  'hi',
  'hello',
  'hey',
  'hiya',
  'howdy',
  'greetings',
  'yo',
  'there',
  'good',
  'morning',
  'afternoon',
  'evening',
  'day',
  'oh',
  'um',
  'uh',
  'yes',
  'yeah',
  'again',
]);

/** A line that is only a greeting ("hello?", "hi there"). */
export function isGreeting(text: string): boolean {
  const t = normalize(text);
  return GREETING.test(t) && t.split(' ').every((w) => FILLER.has(w));
}

/** A line that is only thanks. */
export function isThanks(text: string): boolean {
  const t = normalize(text);
  return /^(?:thanks|thank you|thank you very much|thanks a lot|many thanks|cheers|great thanks|ok thanks|okay thanks|okay thank you|ok thank you)$/.test(
    t,
  );
}

const QUESTION_START =
  /^(?:what|what's|whats|when|when's|where|where's|who|who's|whom|whose|why|how|how's|which|can|could|do|does|did|is|isn't|are|aren't|will|would|should|may|might|have|has|shall)\b/;
const QUESTION_PHRASE =
  /\b(?:tell me|i'd like to know|i would like to know|i want to know|i need to know|i wonder|i was wondering|do you know|any idea|curious about|looking for information|question about|explain)\b/;

/** A question or a request for information. */
export function isQuestion(text: string): boolean {
  if (text.includes('?')) return true;
  return text
    .split(/[.!,;]\s*/)
    .map((part) => normalize(part))
    .some((part) => QUESTION_START.test(part) || QUESTION_PHRASE.test(part));
}

export type StockQuestion = 'who' | 'purpose' | 'robot' | 'repeat' | 'how_are_you';

/** Questions about the call itself, which the prompt answers rather than the knowledge. */
export function stockQuestion(text: string): StockQuestion | undefined {
  const t = normalize(text);
  if (
    /\b(?:say that again|repeat that|come again|pardon|what did you say|didn't (?:catch|hear|get) (?:that|you)|can you repeat|could you repeat|say again|one more time)\b/.test(
      t,
    ) ||
    /^(?:sorry|what|huh|eh)$/.test(t)
  )
    return 'repeat';
  if (
    /\b(?:are you (?:a |an )?(?:robot|bot|ai|machine|human|real person|real|computer|person|recording|automated)|is this (?:a |an )?(?:robot|bot|recording|machine|ai|computer|automated)|am i (?:talking|speaking) (?:to|with) (?:a |an )?(?:robot|bot|machine|ai|computer|human|real person|person))\b/.test(
      t,
    )
  )
    return 'robot';
  if (
    /\b(?:who is this|who's this|who are you|who is calling|who's calling|who am i (?:speaking|talking) (?:to|with)|what's your name|what is your name|where are you calling from|who do you work for)\b/.test(
      t,
    )
  )
    return 'who';
  if (
    /\b(?:what is this about|what's this about|what is this regarding|what's this regarding|why are you calling|what are you calling about|what do you want|what is it about|what's it about|what is this call about|what can you do|what do you do|how can you help|what can you help with|why did you call)\b/.test(
      t,
    )
  )
    return 'purpose';
  if (/\b(?:how are you|how's it going|how are things|how do you do|how are you doing)\b/.test(t))
    return 'how_are_you';
  return undefined;
}

/** The words of a line with the usual lead-ins removed ("well, it's ..." → "..."). */
export function answerText(text: string): string {
  let t = text.trim().replace(/[.!]+$/, '');
  for (let i = 0; i < 4; i++) {
    const before = t;
    t = t
      .replace(
        /^(?:um+|uh+|er+|erm|well|oh|so|okay|ok|sure|yes|yeah|yep|right|alright|of course|certainly|it's|it is|that's|that is|this is|i'm|i am|i'd say|i think|probably|let me see|let's see|my \w+(?: \w+)? is|call me|mine is|it would be|that would be)\b[,\s]*/i,
        '',
      )
      .trim();
    if (t === before) break;
  }
  return t;
}

/** True when the line has no words at all (silence, noise). */
export function isEmpty(text: string): boolean {
  return words(text).length === 0;
}
