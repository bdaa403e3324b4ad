// Whether what the caller said reads as a finished turn, so endpointing can answer sooner: a
// question (ends in `?`), or a short answer made only of yes/no/thanks-style words ("yes",
// "no thanks", "okay, thank you"). Anything else may go on after a pause.

const ANSWER_WORDS = new Set([
  'yes',
  'yeah',
  'yep',
  'yup',
  'no',
  'nope',
  'nah',
  'sure',
  'ok',
  'okay',
  'alright',
  'right',
  'correct',
  'exactly',
  'absolutely',
  'definitely',
  'fine',
  'great',
  'perfect',
  'thanks',
  'thank',
  'you',
  'please',
  'of',
  'course',
  'not',
  'really',
  'bye',
  'goodbye',
  'all',
]);
const MAX_ANSWER_WORDS = 4;

export function isCompleteUtterance(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed === '') return false;
  if (/\?["'”’)\]]*$/.test(trimmed)) return true;
  const words = trimmed
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return words.length > 0 && words.length <= MAX_ANSWER_WORDS && words.every((w) => ANSWER_WORDS.has(w));
}
