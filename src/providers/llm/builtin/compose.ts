import type { AgentProfile, Offer } from './prompt.ts';
import { capitalize, ending, lowerFirst, normalize } from './text.ts';

// Composing what the agent says: the opening line, who it is and why it calls, what it offers,
// acknowledgements, and the closing questions, each with a few wordings so that the agent never
// says exactly the same line twice.

export const WRAP_UP = [
  'Is there anything else I can help you with?',
  'Can I help you with anything else?',
  'Is there anything else you would like to know?',
  'What else can I do for you?',
];

export function pick<T>(options: readonly T[], variant: number): T {
  const chosen = options[variant % options.length];
  if (chosen === undefined) throw new Error('pick needs at least one option');
  return chosen;
}

/** "Hi, this is Sam from SunCo." / "Hi, you've reached Bright Smile Dental." / "Hello!" */
export function hello(profile: AgentProfile, variant: number): string {
  const hi = pick(['Hi', 'Hello'], variant);
  if (profile.name && profile.org) return `${hi}, this is ${profile.name} from ${profile.org}.`;
  if (profile.name) return `${hi}, this is ${profile.name}.`;
  if (profile.org)
    return profile.outbound
      ? `${hi}, I'm calling from ${profile.org}.`
      : `${hi}, you've reached ${profile.org}.`;
  return `${hi} there!`;
}

/** "This is Sam from SunCo." / "I'm Mia, the receptionist at Bright Smile Dental." */
export function identity(profile: AgentProfile): string {
  const role = profile.role ? `the ${profile.role.replace(/^(?:a|an|the)\s+/i, '')}` : undefined;
  if (profile.name && role && profile.org) return `I'm ${profile.name}, ${role} at ${profile.org}.`;
  if (profile.name && profile.org) return `This is ${profile.name} from ${profile.org}.`;
  if (profile.name && role) return `I'm ${profile.name}, ${role}.`;
  if (profile.name) return `This is ${profile.name}.`;
  if (role && profile.org) return `I'm ${role} at ${profile.org}.`;
  if (profile.org) return `I'm an assistant for ${profile.org}.`;
  return "I'm a virtual assistant.";
}

/** "I'm calling to offer a free solar assessment." */
export function purposeLine(profile: AgentProfile): string | undefined {
  if (!profile.purpose) return undefined;
  return ending(`${profile.outbound ? "I'm calling" : "I'm here"} ${profile.purpose}`);
}

export function offerLine(offer: Offer): string {
  return offer.isAction ? `I can help you ${offer.text}.` : `I can help with ${offer.text}.`;
}

/** What the agent is for, in one or two short sentences; undefined when the prompt does not say. */
export function aboutLine(profile: AgentProfile): string | undefined {
  const purpose = purposeLine(profile);
  if (purpose) return purpose;
  const offers = profile.offers.slice(0, 2).map(offerLine);
  return offers.length > 0 ? offers.join(' ') : undefined;
}

/** A question again, worded a little differently each time. */
export function askAgain(question: string, variant: number): string {
  if (variant === 0) return question;
  const lead = pick(['So, ', 'Just to check, ', 'May I ask, ', 'Let me ask again: '], variant - 1);
  return lead + lowerFirst(question);
}

export const SORRY = [
  "Sorry, I didn't catch that.",
  "I'm sorry, I didn't quite get that.",
  'Sorry, could you say that again?',
];

export const NO_INFO = [
  "I'm sorry, I don't have that information.",
  "I'm afraid I don't know that.",
  "Sorry, I don't have the details on that.",
];

/** Joins sentences into one line. */
export function line(parts: readonly (string | undefined)[]): string {
  return parts
    .filter((p): p is string => p !== undefined && p.trim() !== '')
    .map((p) => capitalize(p.trim()))
    .join(' ');
}

/**
 * The first wording (over variants 0..7) that the agent has not said before; when every wording
 * was said already, the last one with a short lead-in.
 */
export function unsaid(build: (variant: number) => string, said: ReadonlySet<string>, start = 0): string {
  let candidate = '';
  for (let v = 0; v < 8; v++) {
    candidate = build(start + v);
    if (candidate === '' || !said.has(normalize(candidate))) return candidate;
  }
  for (const lead of ['Let me put it another way.', 'Once more:', 'To be clear:']) {
    const fallback = `${lead} ${candidate}`;
    if (!said.has(normalize(fallback))) return fallback;
  }
  return `Sorry to repeat myself. ${candidate}`;
}
