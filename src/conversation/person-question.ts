// What the agent asked, as the simulated person takes it. A line heard through a speech
// recognizer (audio sim calls) has no punctuation: "thank you is there anything else i can help
// you with", so there the question is found by its opening words instead of its question mark.

const LEAD_INS = /^(?:so|and|also|now|okay|ok|great|alright|well|just to check|one more thing)[,.]?\s+/;
const REQUEST = /\b(?:tell me|let me know|please (?:give|provide|share|confirm|spell|say))\b/i;
const WH = 'what|when|which|how|who|where|why';
/**
 * Where a question starts in unpunctuated words: an auxiliary before its subject ("do you"), with
 * the wh-words before it ("how much do you"), or a wh-word alone ("what time").
 */
const OPENER = new RegExp(
  `\\b(?:(?:${WH})(?:\\s+\\w+){0,2}?\\s+)?(?:do|does|did|are|is|was|were|have|has|can|could|would|will|may|shall|should)\\s+(?:you|i|we|it|this|that|there|now)\\b|\\b(?:${WH})\\s+\\w+`,
  'g',
);

function withoutLeadIns(question: string): string {
  let q = question.toLowerCase().trim();
  for (let previous = ''; previous !== q;) {
    previous = q;
    q = q.replace(LEAD_INS, '');
  }
  return q;
}

/** The agent's last question (or request), lower-cased and without lead-ins; null if none. */
export function questionIn(line: string): string | null {
  const sentences = line.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== '');
  let question = [...sentences].reverse().find((s) => s.trim().endsWith('?'));
  if (!question && !/[.!?]/.test(line)) {
    // Heard, not written: from the last question opener on.
    const openers = [...line.toLowerCase().matchAll(OPENER)];
    const last = openers.at(-1);
    if (last?.index !== undefined) question = `${line.slice(last.index).trim()}?`;
  }
  if (!question && REQUEST.test(line)) question = line;
  if (!question) return null;
  return withoutLeadIns(question);
}
