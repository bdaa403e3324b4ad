import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { invalidInput } from './errors.ts';

/**
 * Normalizes a phone number to E.164 (`+14155550123`). Numbers must carry their country code,
 * written with or without the leading `+`; returns null when the number is not a possible
 * number of any country.
 */
export function normalizeE164(input: string): string | null {
  const trimmed = input.trim();
  if (trimmed === '' || trimmed.length > 32 || !/^\+?[\d\s().-]+$/.test(trimmed)) return null;
  const withPlus = trimmed.startsWith('+') ? trimmed : `+${trimmed}`;
  const parsed = parsePhoneNumberFromString(withPlus);
  if (!parsed || !parsed.isPossible()) return null;
  return parsed.number;
}

/** `input` in E.164, or a 400 naming `loc` (`['body', 'phone_number']`) when it is not a number. */
export function requireE164(input: string, loc: readonly (string | number)[]): string {
  const e164 = normalizeE164(input);
  if (e164) return e164;
  const name = loc
    .map((seg) => (typeof seg === 'number' ? `[${seg}]` : `.${seg}`))
    .join('')
    .slice(1);
  throw invalidInput(`${name} is not a valid phone number with a country code`, [...loc], 'phone_number');
}

/** A number's slug is its E.164 form without the leading `+` (WIRE.md section 3). */
export function slugOf(e164: string): string {
  return e164.startsWith('+') ? e164.slice(1) : e164;
}
