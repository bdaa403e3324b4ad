import { answerText, isQuestion, matchChoice, yesNo } from './intents.ts';
import type { Extractor } from './tools.ts';
import { capitalize, normalize } from './text.ts';

// Finding the value an extraction tool collects in what the caller said: an email address
// (also spoken: "jane dot doe at example dot com"), a phone number (also in words), a number,
// yes/no for booleans, one of the enum choices, or otherwise the answer itself.

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

export function findEmail(text: string): string | undefined {
  const written = EMAIL.exec(text)?.[0];
  if (written) return written.replace(/\.$/, '').toLowerCase();
  const spoken = text
    .toLowerCase()
    .replace(/\s+(?:at|@)\s+/g, '@')
    .replace(/\s+(?:dot|period|point)\s+/g, '.')
    .replace(/\s+(?:underscore)\s+/g, '_')
    .replace(/\s+(?:dash|hyphen)\s+/g, '-');
  return EMAIL.exec(spoken)?.[0]?.replace(/\.$/, '');
}

const DIGIT_WORDS: Record<string, string> = {
  zero: '0',
  oh: '0',
  o: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
};

/** Phone numbers: at least 7 digits, written with the usual separators or said digit by digit. */
export function findPhone(text: string): string | undefined {
  const written = /\+?\d[\d\s().-]{5,}\d/.exec(text)?.[0];
  const digits = (s: string) => s.replace(/[^\d+]/g, '');
  if (written && digits(written).replace('+', '').length >= 7) return digits(written);
  const spoken = text
    .toLowerCase()
    .split(/[\s,.-]+/)
    .map((w) =>
      w === 'double' || w === 'triple'
        ? w
        : (DIGIT_WORDS[w] ?? (/^\d+$/.test(w) ? w : w === 'plus' ? '+' : ' ')),
    )
    .reduce<string[]>((out, w, i, all) => {
      const prev = all[i - 1];
      if (w === 'double' || w === 'triple') return out;
      if (/^\d$/.test(w) && (prev === 'double' || prev === 'triple'))
        out.push(w.repeat(prev === 'double' ? 2 : 3));
      else out.push(w);
      return out;
    }, [])
    .join('');
  const run = /\+?\d{7,}/.exec(spoken.replace(/ +/g, ' ').replace(/(\d) (?=\d)/g, '$1'))?.[0];
  return run;
}

const SMALL_NUMBERS: Record<string, number> = {
  zero: 0,
  none: 0,
  one: 1,
  a: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

/** The first number in the line, written ("2,500", "3.5") or in words up to the thousands. */
export function findNumber(text: string): number | undefined {
  const written = /-?\d[\d,]*(?:\.\d+)?/.exec(text)?.[0];
  if (written) {
    const value = Number(written.replace(/,(?=\d{3}\b)/g, ''));
    if (Number.isFinite(value)) return value;
  }
  let total = 0;
  let current = 0;
  let seen = false;
  for (const word of normalize(text).replace(/-/g, ' ').split(' ')) {
    if (word === 'a' && !seen) continue;
    if (word in SMALL_NUMBERS && word !== 'a') current += SMALL_NUMBERS[word] ?? 0;
    else if (word in TENS) current += TENS[word] ?? 0;
    else if (word === 'hundred') current = (current || 1) * 100;
    else if (word === 'thousand') {
      total += (current || 1) * 1000;
      current = 0;
    } else if (word === 'and' && seen) continue;
    else if (seen) break;
    else continue;
    seen = true;
  }
  return seen ? total + current : undefined;
}

function cleanName(text: string): string | undefined {
  const name = answerText(text)
    .replace(/^(?:my name is|my name's|name is|name's|i'm called|i am called|they call me)\s+/i, '')
    .replace(/[.!,]+$/, '')
    .trim();
  if (name === '' || name.split(/\s+/).length > 5) return undefined;
  return name
    .split(/\s+/)
    .map((w) => (/^[a-z]/.test(w) ? capitalize(w) : w))
    .join(' ');
}

/**
 * The value for the extractor in the caller's line, or undefined. Free-form values (names, text)
 * are taken only when the tool's question was just asked (`asked`); email addresses and phone
 * numbers are recognised whenever they appear.
 */
export function extractValue(
  extractor: Extractor,
  line: string,
  asked: boolean,
): string | number | boolean | undefined {
  switch (extractor.kind) {
    case 'email':
      return findEmail(line);
    case 'phone':
      return findPhone(line);
    case 'number':
    case 'integer': {
      if (!asked) return undefined;
      const value = findNumber(line);
      if (value === undefined) return undefined;
      return extractor.kind === 'integer' ? Math.round(value) : value;
    }
    case 'boolean': {
      if (!asked) return undefined;
      const answer = yesNo(line);
      return answer === 'yes' ? true : answer === 'no' ? false : undefined;
    }
    case 'enum':
      return asked ? matchChoice(line, extractor.choices ?? []) : undefined;
    case 'name':
      if (!asked || isQuestion(line) || yesNo(line) === 'no') return undefined;
      return cleanName(line);
    case 'text': {
      if (!asked || isQuestion(line) || yesNo(line) === 'no') return undefined;
      const text = answerText(line)
        .replace(/[.!]+$/, '')
        .trim();
      return text === '' ? undefined : text;
    }
  }
}
