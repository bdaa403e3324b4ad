import { findNumbers } from 'libphonenumber-js/max';

// `redact_pii`: what is stored (transcripts, webhooks) masks emails, card numbers, phone numbers
// and account numbers. The live conversation is not masked: the agent needs what the caller said.

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
// 13 to 19 digits, optionally grouped by spaces or dashes: card-number shaped.
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){11,30}\b/g;
// Any remaining run of 8 or more digits (account, routing, policy numbers...).
const LONG_NUMBER = /\b\d(?:[ -]?\d){7,}\b/g;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function redactPii(text: string): string {
  let out = text.replace(EMAIL, '[email]');
  out = out.replace(CARD, (m) => (luhnValid(m.replace(/\D/g, '')) ? '[card]' : m));
  out = out.replace(IBAN, '[account]');
  // Phone numbers as libphonenumber-js finds them (international, or national in the US).
  const found = findNumbers(out, { defaultCountry: 'US', v2: true });
  for (const match of found.reverse()) {
    out = `${out.slice(0, match.startsAt)}[phone]${out.slice(match.endsAt)}`;
  }
  return out.replace(LONG_NUMBER, '[number]');
}
