import { instructionToQuestion, type Question } from './questions.ts';
import { sentences, swapPerson } from './text.ts';

// Reading the agent's prompt: who the agent is (name, organisation, role), whether it makes the
// calls (outbound), why it calls, what it can help with, and the questions its instructions tell
// it to ask, in order. Only short phrases are taken from the prompt; it is never said verbatim.

export interface Offer {
  /** "book an appointment" (a verb phrase) or "billing questions" (a noun phrase). */
  text: string;
  isAction: boolean;
  /** The action books something ("book", "schedule"...): a yes leads to "when?". */
  booking: boolean;
}

export interface AgentProfile {
  name?: string;
  org?: string;
  /** "receptionist", "assistant"... */
  role?: string;
  /** The agent places the calls (the prompt says it calls people). */
  outbound: boolean;
  /** Why the agent calls, ready to say after "I'm calling": "to offer a free solar assessment". */
  purpose?: string;
  offers: Offer[];
  /** Questions the instructions ask for, in the prompt's order. */
  questions: Question[];
}

const NOT_NAMES = new Set(
  (
    'A An The AI Friendly Helpful Polite Professional Calling Speaking Working Now Here Going Not Always ' +
    'Never Very An Expert Your You Our Responsible Tasked Talking Able Warm Kind Concise Brief'
  ).split(' '),
);
// Capitalised words, possibly joined by of/and/&; a full stop only inside a word ("Acme.io").
const ORG_WORD = "[A-Z][\\w&'-]*(?:\\.[\\w&'-]+)*";
const ORG = `(${ORG_WORD}(?:[ \\t]+(?:(?:of|and|&|the|de|for)[ \\t]+)?${ORG_WORD})*)`;
const MAX_PHRASE_WORDS = 14;

function cleanOrg(org: string | undefined): string | undefined {
  if (!org) return undefined;
  const cleaned = org
    .replace(/['’]s$/, '')
    .replace(/[.,]+$/, '')
    .trim();
  return cleaned === '' || NOT_NAMES.has(cleaned) ? undefined : cleaned;
}

function shortPhrase(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const cleaned = text.trim().replace(/[.,;:!?]+$/, '');
  if (cleaned === '' || cleaned.split(/\s+/).length > MAX_PHRASE_WORDS) return undefined;
  return cleaned;
}

function readIdentity(prompt: string): Pick<AgentProfile, 'name' | 'org' | 'role'> {
  const identity: Pick<AgentProfile, 'name' | 'org' | 'role'> = {};
  const name =
    /\b[Yy]our name is ([A-Z][A-Za-z'-]+)/.exec(prompt)?.[1] ??
    /\b(?:[Yy]ou are|[Yy]ou're|[Yy]ou play|[Aa]ct as|[Cc]all yourself|[Ii]ntroduce yourself as) ([A-Z][A-Za-z-]+)\b(?!['’]s|[ \t]+[A-Z][\w&-]*['’]s\b)/.exec(
      prompt,
    )?.[1];
  if (name && !NOT_NAMES.has(name)) identity.name = name;

  const roleAt = new RegExp(
    `\\b(?:[Yy]ou are|[Yy]ou're|[Aa]ct as)\\s+(?:${identity.name ?? '\\u0000'},?\\s+)?(?:an?|the)\\s+([a-z][a-z -]{1,40}?)\\s+(?:at|for|from|of|with|working for|representing)\\s+${ORG}`,
  ).exec(prompt);
  if (roleAt) {
    identity.role = roleAt[1]?.trim();
    identity.org = cleanOrg(roleAt[2]);
  }
  const possessive =
    /\b(?:[Yy]ou are|[Yy]ou're)\s+([A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*)['’]s\s+([a-z][a-z -]{1,30}?)\b(?=[.,;]|\s+(?:who|that|and)\b)/.exec(
      prompt,
    );
  if (!identity.org && possessive) {
    identity.org = cleanOrg(possessive[1]);
    identity.role ??= possessive[2]?.trim();
  }
  if (!identity.org) {
    const firstSentences = sentences(prompt).slice(0, 2).join(' ');
    const from =
      new RegExp(`\\b(?:from|at|with|for)\\s+${ORG}`).exec(
        firstSentences.replace(/^[^.]*?\b(?:[Yy]ou are|[Yy]ou're)\b/, ''),
      ) ??
      new RegExp(
        `\\b(?:on behalf of|work(?:s|ing)? (?:for|at)|represent(?:s|ing)?|calling from|employed by)\\s+${ORG}`,
      ).exec(prompt);
    if (from && /\b(?:[Yy]ou are|[Yy]ou're|[Yy]our name)\b/.test(firstSentences + prompt))
      identity.org = cleanOrg(from[1]);
  }
  if (identity.org && identity.org === identity.name) delete identity.org;
  return identity;
}

const OUTBOUND =
  /\b(?:you (?:will )?(?:are )?(?:call|calling|phone|phoning|ring|ringing|dial|dialing|dialling|reach out to|reaching out to|contact|contacting|make calls)\b|outbound|cold[- ]call)/i;

function readPurpose(prompt: string): string | undefined {
  const patterns = [
    /\b(?:the )?(?:purpose|goal|aim|reason) (?:of|for) (?:this|the|your|each) calls? is (to [^.!?\n;]+)/i,
    /\byou (?:are |will be |will )?(?:call|calling|phone|phoning|ring|ringing|contact|contacting|reach out to|reaching out to)\b[^.!?\n]*?\b((?:to|about|regarding) [^.!?\n,;]+)/i,
    /\byour (?:goal|job|task|aim|mission) is (to [^.!?\n;]+)/i,
  ];
  for (const pattern of patterns) {
    const found = shortPhrase(pattern.exec(prompt)?.[1]);
    if (found)
      return swapPerson(found.replace(/\s+and\s+(?:ask|book|schedule|find|collect|get|confirm)\b.*$/i, ''));
  }
  return undefined;
}

const HELP_OBJECT =
  '(?:(?:the )?(?:callers?|customers?|clients?|patients?|people|users?|visitors?|homeowners?|guests?|members?|them|you)\\s+)?';

function readOffers(prompt: string): Offer[] {
  const offers: Offer[] = [];
  const add = (text: string | undefined, isAction: boolean) => {
    const phrase = shortPhrase(
      text?.replace(/\s+(?:and|or)\s+(?:ask|collect|get|confirm|find|check)\b.*$/i, ''),
    );
    if (!phrase || offers.some((o) => o.text === phrase)) return;
    const swapped = swapPerson(phrase);
    offers.push({
      text: swapped,
      isAction,
      booking: isAction && /^(?:book|schedule|arrange|reserve|set up|make)\b/i.test(swapped),
    });
  };
  for (const sentence of sentences(prompt)) {
    for (const clause of sentence.split(/,?\s+(?:and|or)\s+(?=help|assist)|;\s*/i)) {
      let m = new RegExp(`\\b(?:help|assist)(?:s|ing)?\\s+${HELP_OBJECT}with\\s+([^.!?;]+)`, 'i').exec(
        clause,
      );
      if (m) {
        add(m[1], false);
        continue;
      }
      m = new RegExp(`\\b(?:help|assist)(?:s|ing)?\\s+${HELP_OBJECT}(?:to\\s+)?([a-z][^.!?;]+)`, 'i').exec(
        clause,
      );
      if (m) add(m[1], true);
    }
  }
  return offers;
}

const STEP_START =
  '(?:ask|find out|check|confirm|verify|determine|see if|see whether|collect|get|request|record|capture|obtain|gather|book|schedule|arrange|set up|reserve|offer)';

function readQuestions(prompt: string): Question[] {
  const questions: Question[] = [];
  for (const sentence of sentences(prompt)) {
    const clauses = sentence
      .replace(/^(?:then|first|next|finally|also|always|politely|please)\b,?\s*/i, '')
      .split(
        new RegExp(`,?\\s+(?:and then|then|and)\\s+(?=${STEP_START}\\b)|,\\s*(?=${STEP_START}\\b)`, 'i'),
      );
    for (const clause of clauses) {
      if (!new RegExp(`^${STEP_START}\\b`, 'i').test(clause.trim())) continue;
      const question = instructionToQuestion(clause);
      if (question && !questions.some((q) => q.text === question.text)) questions.push(question);
    }
  }
  return questions;
}

/** Prompts read lately: every turn of a conversation reads the same prompt again. */
const profiles = new Map<string, AgentProfile>();
const PROFILES_KEPT = 256;

/** The agent profile a prompt describes (the same object for the same text; do not modify it). */
export function readPrompt(prompt: string): AgentProfile {
  const known = profiles.get(prompt);
  if (known) return known;
  const profile: AgentProfile = {
    ...readIdentity(prompt),
    outbound: OUTBOUND.test(prompt),
    purpose: readPurpose(prompt),
    offers: readOffers(prompt),
    questions: readQuestions(prompt),
  };
  if (profiles.size >= PROFILES_KEPT) profiles.delete(profiles.keys().next().value!);
  profiles.set(prompt, profile);
  return profile;
}
