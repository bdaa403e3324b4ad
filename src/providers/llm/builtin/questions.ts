import { capitalize, listOf, swapPerson, words } from './text.ts';

// Turning an instruction from a prompt or a tool description ("Ask if they own their home",
// "Ask for and record the caller's email address", "Book a visit") into the question the agent
// says ("Do you own your home?", "Could I have your email address?", "Would you like to book a
// visit?").

export type QuestionKind = 'yesno' | 'open' | 'choice';

export interface Question {
  text: string;
  kind: QuestionKind;
  /** For `choice` questions: the options named in the question. */
  choices?: string[];
  /** What is being asked for ("your email address"), for acknowledgements. */
  topic?: string;
  /** A yes here means the caller wants something booked; the agent then asks when. */
  booking?: boolean;
  /** A no here means the caller declines the offer; remaining steps are skipped. */
  interest?: boolean;
}

const AUX = new Set([
  'are',
  'were',
  'can',
  'could',
  'will',
  'would',
  'should',
  'might',
  'may',
  'must',
  'did',
  'do',
  'have',
  'had',
]);
const CONTRACTED: Record<string, [string, string]> = {
  "you're": ['are', 'you'],
  "you'd": ['would', 'you'],
  "you've": ['have', 'you'],
  "you'll": ['will', 'you'],
};
const PERSON_OBJECT =
  '(?:(?:the|a|an|each|every)\\s+)?(?:callers?|customers?|clients?|patients?|homeowners?|users?|' +
  'people|prospects?|leads?|visitors?|guests?|subscribers?|readers?|person|them|him|her)';
const MAX_WORDS = 22;

/** Strips the end of a clause that only explains why ("... to sign them up", "... so that ..."). */
function dropPurposeTail(text: string): string {
  return text.replace(/\s+(?:so that|so|in order to|because|as|since|to)\s+.*$/i, '');
}

function cleanClause(text: string): string {
  return text
    .trim()
    .replace(/[.!?;:,]+$/, '')
    .replace(/\s+/g, ' ');
}

/** "you own your home" → "Do you own your home?"; undefined when the clause has no clear subject. */
export function yesNoQuestion(clause: string): string | undefined {
  const parts = cleanClause(clause).split(' ');
  const first = (parts[0] ?? '').toLowerCase();
  const second = (parts[1] ?? '').toLowerCase();
  const contracted = CONTRACTED[first];
  if (contracted)
    return capitalize(`${contracted[0]} ${contracted[1]} ${parts.slice(1).join(' ')}`.trim()) + '?';
  if (first === 'you') {
    if (second === '') return undefined;
    const rest = parts.slice(2).join(' ');
    if (second === 'have' && /^(?:been|already|ever|got|had|never)\b/.test(rest))
      return capitalize(`have you ${rest}`) + '?';
    if (AUX.has(second) && second !== 'have' && second !== 'do' && second !== 'did')
      return capitalize(`${second} you ${rest}`.trim()) + '?';
    if (second === 'do' || second === 'did') return capitalize(`${second} you ${rest}`.trim()) + '?';
    if (/ed$/.test(second) && second.length > 4)
      return capitalize(`have you ${parts.slice(1).join(' ')}`) + '?';
    return capitalize(`do you ${parts.slice(1).join(' ')}`) + '?';
  }
  if (/^(?:it|this|that|there|now)$/.test(first) && /^(?:is|was|are|were|will|would|can|could)$/.test(second))
    return capitalize(`${second} ${first} ${parts.slice(2).join(' ')}`.trim()) + '?';
  return undefined;
}

/** "when you are available" → "When are you available?" */
export function whQuestion(clause: string): string {
  const parts = cleanClause(clause).split(' ');
  const lower = parts.map((p) => p.toLowerCase());
  const you = lower.findIndex((w, i) => i > 0 && i <= 4 && (w === 'you' || w in CONTRACTED));
  if (you > 0) {
    const head = parts.slice(0, you).join(' ');
    const subject = lower[you] ?? 'you';
    const contracted = CONTRACTED[subject];
    const next = lower[you + 1] ?? '';
    let body: string;
    if (contracted) body = `${contracted[0]} you ${parts.slice(you + 1).join(' ')}`;
    else if (AUX.has(next) && next !== 'have') body = `${next} you ${parts.slice(you + 2).join(' ')}`;
    else body = `do you ${parts.slice(you + 1).join(' ')}`;
    return capitalize(`${head} ${body}`.trim()) + '?';
  }
  return capitalize(parts.join(' ')) + '?';
}

/** "your email address" → "Could I have your email address?" */
function askFor(object: string): Question | undefined {
  let topic = cleanClause(dropPurposeTail(object));
  topic = topic.replace(/^(?:the|a|an)\s+/i, 'your ');
  if (!/^(?:your|my)\b/i.test(topic)) topic = `your ${topic}`;
  if (topic.split(' ').length > 8) return undefined;
  return { text: `Could I have ${topic}?`, kind: 'open', topic };
}

/** Detects "a, b or c" options at the end of a question. */
export function choicesIn(question: string): string[] | undefined {
  const tail = question.replace(/[?.!]+$/, '');
  const m =
    /((?:[A-Za-z-]+,\s+)*)(?:(?:a|an|the)\s+)?([A-Za-z-]+),?\s+or\s+(?:(?:a|an|the)\s+)?([A-Za-z-]+)/.exec(
      tail,
    );
  if (!m) return undefined;
  const before = (m[1] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const options = [...before, m[2] ?? '', m[3] ?? ''].filter((s) => s !== '');
  if (options.some((o) => /^(?:not|no|yes)$/i.test(o))) return undefined;
  return options.length >= 2 ? options : undefined;
}

function finish(question: Question): Question | undefined {
  if (words(question.text).length > MAX_WORDS) return undefined;
  if (question.kind !== 'choice') {
    const choices = choicesIn(question.text);
    if (choices) return { ...question, kind: 'choice', choices };
  }
  return question;
}

const ASK_VERBS = '(?:ask|find out|check|confirm|verify|determine|establish|see|learn|enquire|inquire)';
const COLLECT_VERBS =
  '(?:collect|get|take|request|record|capture|obtain|note down|note|gather|save|store|extract)';
const BOOK_VERBS = '(?:book|schedule|arrange|set up|organi[sz]e|reserve)';

/**
 * The question an instruction asks for, or undefined when the instruction does not ask the caller
 * anything. The instruction is in the prompt's point of view ("they" is the caller).
 */
export function instructionToQuestion(instruction: string): Question | undefined {
  const text = cleanClause(instruction)
    .replace(
      /^(?:and\s+|then\s+|first,?\s+|next,?\s+|finally,?\s+|also\s+|always\s+|politely\s+|please\s+)+/i,
      '',
    )
    .replace(
      /^(asks?|records?|collects?|gets?|requests?|captures?|extracts?|saves?|stores?|books?|schedules?|offers?)\b/i,
      (v) => v.replace(/s$/i, '').toLowerCase(),
    )
    // "ask for and record X" → "ask for X"; "collect and save X" → "collect X"
    .replace(
      /^(ask for|ask|collect|get|request|record|capture|obtain)\s+(?:and|&)\s+(?:record|save|store|note|capture|confirm|collect|write down|log|keep|remember)\s+/i,
      '$1 ',
    );
  const lowerStart = text.toLowerCase();
  let m: RegExpExecArray | null;

  m = new RegExp(`^${ASK_VERBS}\\s+(?:${PERSON_OBJECT}\\s+)?(.*)$`, 'i').exec(text);
  if (m) {
    const verb = lowerStart.split(' ')[0] ?? '';
    const rest = swapPerson(m[1] ?? '');
    let q: RegExpExecArray | null;
    if ((q = /^(?:if|whether)\s+(.+)$/i.exec(rest))) {
      const clause = dropPurposeTailIfLong(q[1] ?? '');
      const yn = yesNoQuestion(clause);
      const text = yn ?? `Could you tell me whether ${clause}?`;
      return finish({ text, kind: 'yesno', interest: /\b(?:like|interested|want|wish)\b/i.test(clause) });
    }
    if ((q = /^(what|when|where|which|how|who|why)\b(.*)$/i.exec(rest)))
      return finish({ text: whQuestion(rest), kind: 'open' });
    if ((q = /^about\s+(.+)$/i.exec(rest)))
      return finish({ text: `Could you tell me about ${cleanClause(q[1] ?? '')}?`, kind: 'open' });
    if ((q = /^to\s+(.+)$/i.exec(rest)))
      return finish({ text: `Could you ${cleanClause(q[1] ?? '')}?`, kind: 'open' });
    if ((q = /^for\s+(.+)$/i.exec(rest)) && verb === 'ask') {
      const asked = askFor(q[1] ?? '');
      return asked && finish(asked);
    }
    if ((q = /^(?:your|the)\s+(.+)$/i.exec(rest))) {
      if (verb === 'ask') {
        const asked = askFor(rest);
        return asked && finish(asked);
      }
      const topic = `your ${cleanClause(dropPurposeTail(q[1] ?? ''))}`;
      return finish({
        text: `Could you ${verb === 'check' ? 'confirm' : verb} ${topic}?`,
        kind: 'open',
        topic,
      });
    }
    return undefined;
  }
  m = new RegExp(`^${COLLECT_VERBS}\\s+(.+)$`, 'i').exec(text);
  if (m) {
    const rest = swapPerson(m[1] ?? '');
    const toDo = /^you\s+to\s+(.+)$/i.exec(rest);
    if (toDo) return finish({ text: `Could you ${cleanClause(toDo[1] ?? '')}?`, kind: 'open' });
    const asked = askFor(rest);
    return asked && finish(asked);
  }
  m = new RegExp(`^(${BOOK_VERBS})\\s+(.+)$`, 'i').exec(text);
  if (m) {
    const object = cleanClause(dropPurposeTail(swapPerson(m[2] ?? ''))).replace(/\s+for\s+you$/i, '');
    return finish({
      text: `Would you like to ${(m[1] ?? '').toLowerCase()} ${object}?`,
      kind: 'yesno',
      booking: true,
    });
  }
  m = new RegExp(`^offer\\s+(?:${PERSON_OBJECT}\\s+)?(.+)$`, 'i').exec(text);
  if (m) {
    const object = cleanClause(dropPurposeTail(swapPerson(m[1] ?? '')));
    return finish({ text: `Would you be interested in ${object}?`, kind: 'yesno', interest: true });
  }
  return undefined;
}

function dropPurposeTailIfLong(clause: string): string {
  return clause.split(' ').length > 10 ? dropPurposeTail(clause) : clause;
}

/** Appends the options of a choice to its question: "Which plan...? " → "Which plan...: a, b or c?" */
export function withOptions(question: string, options: string[]): string {
  return `${question.replace(/[?.!]+$/, '')}: ${listOf(options)}?`;
}
