import { personaFact, type Persona } from './person-facts.ts';
import type { PersonRole } from './person-builtin.ts';

// What a real language model is told to play the simulated person (person.ts).

const SETTING: Record<PersonRole, string> = {
  callee:
    'You are role-playing a person who has just answered a phone call. The other speaker is the caller, ' +
    'who may be an automated agent.',
  caller:
    'You are role-playing a person who is phoning a business. The other speaker answers for the ' +
    'business and may be an automated agent.',
};

const RULES = [
  'Stay in character. Never say you are an AI, a language model or a simulation.',
  'Speak as on the phone: one or two short sentences, plain words, no lists, no emojis, no stage directions.',
  "Answer what you are asked; if you don't know something, say so briefly.",
  'When the conversation is done (your business is settled, the other side says goodbye, or you want to ' +
    'end the call), say goodbye in your reply.',
].join('\n');

export function personSystemPrompt(role: PersonRole, persona: Persona): string {
  const parts = [SETTING[role]];
  const name = personaFact(persona, 'name');
  if (name) parts.push(`Your name is ${name}.`);
  const facts = Object.entries(persona.variables ?? {})
    .filter(([, value]) => String(value).trim() !== '')
    .map(([key, value]) => `- ${key.replace(/_/g, ' ')}: ${String(value)}`);
  if (facts.length > 0)
    parts.push(`Details about you, to give when asked (not all at once):\n${facts.join('\n')}`);
  if (persona.prompt?.trim()) parts.push(`Your situation and manner:\n${persona.prompt.trim()}`);
  parts.push(RULES);
  return parts.join('\n\n');
}

export const OPENING_INSTRUCTION =
  'The call has just been answered. Say your first line: greet briefly and say why you are calling.';

export const LAST_TURN_INSTRUCTION = 'This is your last reply: answer briefly if needed, then say goodbye.';

/** The model's text as a spoken line: no quotes, speaker labels, stage directions or spare spaces. */
export function spokenLine(text: string, name?: string): string {
  let line = text.replace(/\*[^*]*\*/g, ' ').replace(/\[[^\]]*\]/g, ' ');
  const labels = ['caller', 'callee', 'customer', 'person', 'me', 'you', ...(name ? [name] : [])];
  const label = new RegExp(
    `^\\s*(?:${labels.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\s*:\\s*`,
    'i',
  );
  line = line.replace(label, '');
  line = line.replace(/\s+/g, ' ').trim();
  if (/^"[^"]*"$/.test(line)) line = line.slice(1, -1).trim();
  return line;
}
