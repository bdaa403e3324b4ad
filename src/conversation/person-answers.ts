// How the builtin simulated person words its answers (person-builtin.ts picks which answer). On
// audio sim calls its lines are synthesized and the agent hears them through a speech recognizer
// (PocketSphinx offline), so they are whole short sentences of common words: a bare "Yes." or
// "Mm-hm" is often heard as another word or as nothing, and a sentence gives the recognizer's
// language model context. Facts are said as they are spoken: digits and emails in words.

const DIGITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEENS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** 0-999 in words ("forty two"); larger numbers digit by digit. */
export function numberWords(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 999)
    return [...String(n)].map((d) => DIGITS[Number(d)] ?? d).join(' ');
  if (n < 10) return DIGITS[n]!;
  if (n < 20) return TEENS[n - 10]!;
  if (n < 100) return n % 10 === 0 ? TENS[n / 10]! : `${TENS[Math.floor(n / 10)]} ${DIGITS[n % 10]}`;
  const rest = n % 100;
  return `${DIGITS[Math.floor(n / 100)]} hundred${rest === 0 ? '' : ` ${numberWords(rest)}`}`;
}

/** A fact as it is said: emails and phone numbers in words, short numbers as numbers. */
export function spoken(value: string): string {
  if (/^\S+@\S+\.\S+$/.test(value))
    return value
      .toLowerCase()
      .replace(/@/g, ' at ')
      .replace(/\./g, ' dot ')
      .replace(/[_-]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  const digits = value.replace(/[\s().+-]/g, '');
  if (/^\d{5,}$/.test(digits)) return [...digits].map((d) => DIGITS[Number(d)]).join(' ');
  return value.replace(/\d+/g, (d) => (d.length <= 3 ? numberWords(Number(d)) : spoken(d)));
}

/** The agent's words about the callee, as the callee says them about itself. */
function selfView(text: string): string {
  return text
    .replace(/\byourself\b/g, 'myself')
    .replace(/\byours\b/g, 'mine')
    .replace(/\byour\b/g, 'my')
    .replace(/\byou\b/g, 'me')
    .replace(/\bus\b/g, 'you')
    .replace(/\bour\b/g, 'your');
}

/** Verb phrases longer than this are not echoed: the short answer reads as well and is heard better. */
const ECHO_MAX_WORDS = 7;
/**
 * The first words of a phrase that is echoed. The question may itself have been misheard ("do you
 * on your home"); echoing only phrases that open with a common verb or adjective keeps the answer
 * sensible, and falls back to "Yes, I do." otherwise.
 */
const ECHO_OPENERS = new Set(
  (
    'own rent live have want like need use pay know work get agree remember prefer accept be come make take ' +
    'see hear plan think still already currently also really interested available free happy sure ready ' +
    'home the a an looking okay satisfied able'
  ).split(' '),
);

/**
 * A yes or no to a yes/no question, with the question's own words when they are few: "do you own
 * your home" → "Yes, I own my home." / "No, I do not own my home."; a plain yes or no otherwise.
 */
export function yesNoAnswer(q: string, yes: boolean): string {
  const question = q.replace(/[?.!]+$/, '').trim();
  const subject = /^(do|does|did|are|were|have|can|could|would|will)\s+you\s+(.+)$/.exec(question);
  if (subject) {
    const [, aux = '', rest = ''] = subject;
    const phrase = selfView(rest);
    const said = phrase.split(/\s+/);
    const echo =
      said.length <= ECHO_MAX_WORDS && ECHO_OPENERS.has(said[0] ?? '') && !/\b(?:or|me|i)\b/.test(phrase);
    const forms: Record<string, [string, string]> = {
      do: ['I do', 'I do not'],
      does: ['it does', 'it does not'],
      did: ['I did', 'I did not'],
      are: ['I am', 'I am not'],
      were: ['I was', 'I was not'],
      have: ['I have', 'I have not'],
      can: ['I can', 'I can not'],
      could: ['I can', 'I can not'],
      would: ['I would', 'I would not'],
      will: ['I will', 'I will not'],
    };
    const [positive, negative] = forms[aux] ?? ['I do', 'I do not'];
    if (!echo || aux === 'did' || aux === 'does') return yes ? `Yes, ${positive}.` : `No, ${negative}.`;
    if (aux === 'do') return yes ? `Yes, I ${phrase}.` : `No, I do not ${phrase}.`;
    return yes ? `Yes, ${positive} ${phrase}.` : `No, ${negative} ${phrase}.`;
  }
  const it = /^(?:is|was)\s+(it|this|that|now)\s+(.+)$/.exec(question);
  if (it?.[1] && it[2] && it[2].split(/\s+/).length <= ECHO_MAX_WORDS) {
    const phrase = selfView(it[2]);
    return yes ? `Yes, ${it[1]} is ${phrase}.` : `No, ${it[1]} is not ${phrase}.`;
  }
  if (/^(?:may|can|could|shall) (?:i|we)\b/.test(question))
    return yes ? 'Yes, sure, go ahead.' : 'No, please do not.';
  return yes ? 'Yes, that is right.' : 'No, not really.';
}

/** One option of an "A or B" question, said as the choice: "mornings or afternoons" → afternoons. */
export function choiceAnswer(q: string, pick: number): string | null {
  const question = q.replace(/[?.!]+$/, '');
  const options = /(?:\b|,\s*)([\w-]+(?:,\s*[\w-]+)*)\s+or\s+([\w-]+)\s*$/.exec(question);
  // Without an "or" (misheard), the last word is taken as the choice.
  const all =
    options?.[1] && options[2]
      ? [...options[1].split(/,\s*/), options[2]]
      : [question.split(/\s+/).at(-1) ?? ''];
  const words = all.filter((o) => o.length > 2 && !/^(?:you|it|one|them|that|this)$/.test(o));
  const option = words[pick % Math.max(1, words.length)];
  if (!option) return null;
  return `I prefer ${option}.`;
}
