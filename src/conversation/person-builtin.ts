import { choiceAnswer, spoken, yesNoAnswer } from './person-answers.ts';
import { questionIn } from './person-question.ts';
import { personaFact, seeded, soundsLikeGoodbye, type Persona, type PersonaValue } from './person-facts.ts';

// The simulated person on the offline builtin model: a few fixed rules, no language model.
// docs/builtin-model.md ("Simulated person") lists them; keep the two in step. Its answers fit the
// agent's question and are worded to be heard well by a speech recognizer (person-answers.ts).

export type PersonRole = 'callee' | 'caller';

export interface PersonTurn {
  text: string;
  hangUp: boolean;
}

// "Thanks", not "thank you": PocketSphinx heard rms's "thank you" after a pause as "sin que".
export const PERSON_GOODBYE = 'Okay, thanks, goodbye!';
export const NOTHING_ELSE = 'No, that is all, thanks. Goodbye!';
export const DEFAULT_CALLER_OPENING = 'Hi, I have a question.';
/** When it is free, by seed: a day and a time in words. */
export const SCHEDULE_ANSWERS = [
  'Tomorrow morning at ten works for me.',
  'Friday afternoon at two works for me.',
  'Monday morning at nine works for me.',
];
/** What it pays, for questions about a bill or a cost. */
export const AMOUNT_ANSWERS = ['About two hundred dollars a month.', 'Around one hundred dollars a month.'];

const ACKNOWLEDGEMENTS = ['Okay, go ahead.', 'Sure, I am listening.', 'Alright, go on.', 'Yes, I see.'];
const UNSURE = ['I am not sure about that.', 'I do not know, sorry.', 'I would have to check.'];

/** "you are calling to X" → "I am calling to X": the persona prompt speaks to the person. */
function firstPerson(text: string): string {
  return text
    .replace(/\byou are\b/gi, 'I am')
    .replace(/\byou were\b/gi, 'I was')
    .replace(/\byou have\b/gi, 'I have')
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byours\b/gi, 'mine')
    .replace(/\byour\b/gi, 'my')
    .replace(/\byou\b/gi, 'me')
    .trim();
}

/** Why a caller calls, from its persona prompt; null when the prompt does not say. */
function callerPurpose(prompt: string): string | null {
  const calling = /\b(?:you are|you're)\s+calling\s+((?:to|about|because|regarding|for)\b[^.!?\n]*)/i.exec(
    prompt,
  );
  if (calling?.[1]) return `I'm calling ${firstPerson(calling[1])}.`;
  const want = /\byou(?: (want|would like|need)|('d like)) to ([^.!?\n]+)/i.exec(prompt);
  if (want?.[3]) {
    const verb = want[1]?.toLowerCase() === 'need' ? 'I need' : "I'd like";
    return `${verb} to ${firstPerson(want[3])}.`;
  }
  const question = /\byou have (?:a question|questions) about ([^.!?\n]+)/i.exec(prompt);
  if (question?.[1]) return `I have a question about ${firstPerson(question[1])}.`;
  return null;
}

export function builtinOpening(role: PersonRole, persona: Persona): string {
  if (role === 'callee') return 'Hello?';
  const prompt = persona.prompt ?? '';
  // A line the persona prompt quotes is said as written.
  const quoted = /"([^"\n]{3,200})"/.exec(prompt)?.[1]?.trim();
  if (quoted) return quoted;
  const purpose = callerPurpose(prompt);
  const name = personaFact(persona, 'name');
  if (!purpose) return name ? `Hi, this is ${name}. I have a question.` : DEFAULT_CALLER_OPENING;
  return name ? `Hi, this is ${name}. ${purpose}` : `Hi, ${purpose}`;
}

const YES_NO =
  /^(?:do|does|did|are|is|was|were|have|has|had|can|could|would|will|should|shall|may|might|am)\b/;
const TIME =
  /\b(?:when|what time|which time|what day|which day|day and time|date|mornings?|afternoons?|evenings?|availab\w*)\b/;

function sayFact(persona: Persona, fact: 'name' | 'email' | 'phone' | 'address' | 'company'): string {
  const value = personaFact(persona, fact);
  const missing = {
    name: 'I would rather not say.',
    email: 'I would rather not give my email.',
    phone: 'You can call me at this number.',
    address: 'I would rather not give that over the phone.',
    company: 'It is just me, not a company.',
  };
  if (value === undefined) return missing[fact];
  const said = spoken(value);
  const lead = {
    name: 'My name is',
    email: 'My email is',
    phone: 'My number is',
    address: 'I live at',
    company: 'I work for',
  };
  return `${lead[fact]} ${said}.`;
}

/** A variable the question names by its key ("household_size" → "household size"). */
function namedVariable(persona: Persona, q: string): PersonaValue | undefined {
  for (const [key, value] of Object.entries(persona.variables ?? {})) {
    const words = key
      .toLowerCase()
      .split(/[_\-.\s]+/)
      .filter((w) => w.length > 2);
    if (words.length > 0 && words.every((w) => q.includes(w))) return value;
  }
  return undefined;
}

/** The answer to the agent's line, before the turn limit is applied. */
function answer(line: string, state: ReplyState): PersonTurn {
  const { persona, role, seed, turn } = state;
  const said = (text: string): PersonTurn => ({ text, hangUp: false });
  const q = questionIn(line);
  if (q === null) {
    if (soundsLikeGoodbye(line)) return { text: PERSON_GOODBYE, hangUp: true };
    return said(ACKNOWLEDGEMENTS[seeded(seed, turn, ACKNOWLEDGEMENTS.length)] ?? 'Okay.');
  }
  if (/\b(?:anything else|something else|any other questions?|any more questions?)\b/.test(q))
    return { text: NOTHING_ELSE, hangUp: true };
  if (
    /\b(?:your (?:full )?name|who am i (?:speaking|talking) (?:to|with)|who(?:'s| is) (?:this|calling|speaking))\b/.test(
      q,
    )
  )
    return said(sayFact(persona, 'name'));
  if (/\be-?mail\b/.test(q)) return said(sayFact(persona, 'email'));
  if (/\b(?:phone|mobile|cell|callback number|number to reach|reach you|call you back)\b/.test(q))
    return said(sayFact(persona, 'phone'));
  if (/\baddress\b/.test(q)) return said(sayFact(persona, 'address'));
  if (/\b(?:company|business|organi[sz]ation|employer|work for)\b/.test(q))
    return said(sayFact(persona, 'company'));
  const named = namedVariable(persona, q);
  if (named !== undefined)
    return said(typeof named === 'boolean' ? yesNoAnswer(q, named) : `It is ${spoken(String(named))}.`);
  if (/\bhow are you\b/.test(q)) return said('I am good, thank you.');
  // "prefer" asks for a choice even when its "or" was misheard ("morning so afternoons").
  const choice = /\bor\b/.test(q) || /\bprefer\b/.test(q);
  const yesNo = YES_NO.test(q) && !choice;
  const schedule = SCHEDULE_ANSWERS[seeded(seed, 'when', SCHEDULE_ANSWERS.length)] ?? SCHEDULE_ANSWERS[0]!;
  if (choice) return said(choiceAnswer(q, seeded(seed, `or${turn}`, 2)) ?? schedule);
  if (!yesNo && TIME.test(q)) return said(schedule);
  // "each month" too: a misheard "how much" ("do you pay each month") still asks for an amount.
  if (
    /\b(?:bill|pay|paying|cost|costs|spend|price|amount)\b/.test(q) &&
    /\b(?:how much|what|each month|a month|per month|monthly)\b/.test(q)
  )
    return said(AMOUNT_ANSWERS[seeded(seed, 'amount', AMOUNT_ANSWERS.length)] ?? AMOUNT_ANSWERS[0]!);
  if (yesNo) return said(yesNoAnswer(q, !(seed !== '' && seeded(seed, `yn${turn}`, 4) === 0)));
  const many = /\bhow many (\w+)/.exec(q);
  if (many?.[1]) return said(`About three ${many[1]}, I think.`);
  if (/\bhow much\b/.test(q)) return said('About two hundred dollars, I think.');
  if (
    /\b(?:how (?:can|may) i help|what can i do for you|how can we help|what (?:are you|is this) (?:calling )?about)\b/.test(
      q,
    )
  ) {
    if (role === 'callee') return said('What is this about?');
    return said(callerPurpose(persona.prompt ?? '') ?? 'I have a question.');
  }
  return said(UNSURE[seeded(seed, `q${turn}`, UNSURE.length)] ?? "I'm not sure.");
}

export interface ReplyState {
  role: PersonRole;
  persona: Persona;
  seed: string;
  /** This reply's number, from 1. */
  turn: number;
  maxTurns: number;
}

/** The builtin person's reply: the rule's answer, closed with a goodbye on the last turn. */
export function builtinReply(agentSaid: string, state: ReplyState): PersonTurn {
  const turn = answer(agentSaid, state);
  if (turn.hangUp || state.turn < state.maxTurns) return turn;
  const ack = ACKNOWLEDGEMENTS.includes(turn.text);
  return { text: ack ? PERSON_GOODBYE : `${turn.text} ${PERSON_GOODBYE}`, hangUp: true };
}
