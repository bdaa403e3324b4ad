// Shared pieces of the simulated person (person.ts): who it is, how it recognises a goodbye, and
// the seeded choices that vary its wording deterministically from one call to the next.

export type PersonaValue = string | number | boolean;

export interface Persona {
  name?: string;
  /** For simulations: the person's situation, goal and manner. */
  prompt?: string;
  /** Facts it answers with when asked (email, phone, company...), by variable name. */
  variables?: Record<string, PersonaValue>;
}

export type PersonFact = 'name' | 'email' | 'phone' | 'address' | 'company';

/** Variable names each fact is read from, first found wins (case-insensitive). */
export const FACT_VARIABLES: Record<PersonFact, readonly string[]> = {
  name: ['name', 'full_name', 'lead_name', 'customer_name', 'first_name'],
  email: ['email', 'lead_email', 'email_address', 'customer_email'],
  phone: ['phone', 'phone_number', 'lead_phone', 'mobile', 'customer_phone'],
  address: ['address', 'home_address', 'street_address', 'lead_address'],
  company: ['company', 'company_name', 'lead_company', 'business', 'organization'],
};

function variable(persona: Persona, key: string): string | undefined {
  for (const [name, value] of Object.entries(persona.variables ?? {})) {
    if (name.toLowerCase() === key && String(value).trim() !== '') return String(value).trim();
  }
  return undefined;
}

/** A fact about the person: the persona's name first for `name`, else its variables. */
export function personaFact(persona: Persona, fact: PersonFact): string | undefined {
  if (fact === 'name' && persona.name?.trim()) return persona.name.trim();
  for (const key of FACT_VARIABLES[fact]) {
    const value = variable(persona, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

const GOODBYE =
  /\b(?:good-?\s?bye|bye(?:[- ]bye)?|bye for now|take care|talk (?:to you )?(?:later|soon)|have a (?:nice|good|great|lovely|wonderful) (?:day|one|evening|weekend|afternoon|night))\b/i;

/** A line that takes leave ("Thanks, goodbye!", "Have a nice day."); a question never does. */
export function soundsLikeGoodbye(text: string): boolean {
  return GOODBYE.test(text) && !text.trim().endsWith('?');
}

/** FNV-1a: a stable number from the seed and a salt, so the same call varies the same way. */
export function seeded(seed: string, salt: string | number, modulo: number): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}\u0000${salt}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % modulo;
}
