import type { ChatMessage } from '../types.ts';
import { contentTokens, ending, limitWords, sentences } from './text.ts';

// Knowledge passages: the engine puts the passages retrieved for the latest user message in a
// system message that starts with the line `## Knowledge`, one passage per `- ` line. A passage
// answers the caller when it shares meaningful words (or synonym groups) with what they said.

const HEADER = /^\s*##\s*knowledge\b[^\n]*\n?/i;
const QUOTE_WORDS = 40;

export function readKnowledge(messages: readonly ChatMessage[]): string[] {
  const passages: string[] = [];
  for (const message of messages) {
    if (message.role !== 'system' || !HEADER.test(message.content)) continue;
    let current: string | undefined;
    for (const line of message.content.replace(HEADER, '').split('\n')) {
      const item = /^\s*[-*]\s+(.*)$/.exec(line);
      if (item) {
        if (current !== undefined) passages.push(current);
        current = (item[1] ?? '').trim();
      } else if (line.trim() === '' || /^\s*#/.test(line)) {
        if (current !== undefined) passages.push(current);
        current = undefined;
      } else if (current !== undefined) current = `${current} ${line.trim()}`;
    }
    if (current !== undefined) passages.push(current);
  }
  return passages.filter((p) => p !== '');
}

export interface PassageMatch {
  passage: string;
  score: number;
  /** How many distinct tokens of the line the passage holds. */
  matched: number;
}

/**
 * The passage that best matches the line: each shared token counts more when fewer passages hold
 * it. Ties go to the earlier passage (the retriever's order). Undefined when nothing is shared.
 */
export function bestPassage(line: string, passages: readonly string[]): PassageMatch | undefined {
  const query = contentTokens(line);
  if (query.length === 0 || passages.length === 0) return undefined;
  const tokenSets = passages.map((p) => new Set(contentTokens(p)));
  let best: PassageMatch | undefined;
  passages.forEach((passage, i) => {
    const tokens = tokenSets[i] ?? new Set<string>();
    let score = 0;
    let matched = 0;
    for (const token of query) {
      if (!tokens.has(token)) continue;
      const holders = tokenSets.filter((set) => set.has(token)).length;
      score += 1 + Math.log((passages.length + 1) / holders);
      matched++;
    }
    if (matched > 0 && (!best || score > best.score)) best = { passage, score, matched };
  });
  return best;
}

/**
 * A short quote of the passage for the line: the whole passage when short, otherwise its
 * sentences that share the most with the line (in passage order), within about 40 words.
 */
export function quotePassage(passage: string, line: string): string {
  const parts = sentences(passage);
  if (passage.split(/\s+/).length <= QUOTE_WORDS || parts.length <= 1)
    return ending(limitWords(passage, QUOTE_WORDS));
  const query = new Set(contentTokens(line));
  const scored = parts.map((sentence, index) => ({
    sentence,
    index,
    score: contentTokens(sentence).filter((t) => query.has(t)).length,
  }));
  const chosen: typeof scored = [];
  let count = 0;
  for (const s of [...scored].sort((a, b) => b.score - a.score || a.index - b.index)) {
    const n = s.sentence.split(/\s+/).length;
    if (chosen.length > 0 && (s.score === 0 || count + n > QUOTE_WORDS)) continue;
    chosen.push(s);
    count += n;
  }
  return ending(
    limitWords(
      chosen
        .sort((a, b) => a.index - b.index)
        .map((s) => ending(s.sentence))
        .join(' '),
      QUOTE_WORDS,
    ),
  );
}
