import type { Clock } from '../../../core/index.ts';
import type { ChatChunk, ChatRequest, ChatTimings, ToolCall } from '../types.ts';
import type { Decision } from './decide.ts';

// Streaming a decision the way a model would: the text in groups of a few words, then the tool
// calls, then exactly one `done` with rough token counts (about four characters a token) and
// timings from the clock. An aborted signal ends the stream with `aborted` at the next chunk.

const WORDS_PER_CHUNK = 3;

/** About four characters a token, at least one for non-empty text. */
export function estimateTokens(text: string): number {
  return text === '' ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

function promptTokens(request: ChatRequest): number {
  const messages = request.messages.reduce((n, m) => {
    const calls =
      m.role === 'assistant'
        ? (m.toolCalls ?? []).reduce((c, t) => c + estimateTokens(t.name + t.arguments), 0)
        : 0;
    return n + 4 + estimateTokens(m.content) + calls;
  }, 0);
  return messages + (request.tools ?? []).reduce((n, t) => n + estimateTokens(JSON.stringify(t)), 0);
}

/** Word groups whose concatenation is the text. */
export function wordGroups(text: string, size = WORDS_PER_CHUNK): string[] {
  const pieces = text.split(/(?<=\s)(?=\S)/);
  const groups: string[] = [];
  for (let i = 0; i < pieces.length; i += size) groups.push(pieces.slice(i, i + size).join(''));
  return groups.filter((g) => g !== '');
}

export async function* streamDecision(
  decision: Decision,
  request: ChatRequest,
  clock: Clock,
  callIdPrefix: string,
): AsyncGenerator<ChatChunk> {
  const startedAt = clock.now();
  let firstTokenAt: number | undefined;
  const timings = (): ChatTimings => ({ startedAt, firstTokenAt, endedAt: clock.now() });
  const aborted = () => request.signal?.aborted === true;

  let text = decision.text;
  let calls: ToolCall[] = decision.toolCalls.map((c, i) => ({
    id: `${callIdPrefix}_${i}`,
    name: c.name,
    arguments: JSON.stringify(c.arguments),
  }));
  let finishReason: 'stop' | 'tool_calls' | 'length' = calls.length > 0 ? 'tool_calls' : 'stop';
  if (request.maxTokens !== undefined && estimateTokens(text) > request.maxTokens) {
    text = text.slice(0, Math.max(0, request.maxTokens) * 4).replace(/\s+\S*$/, '');
    calls = [];
    finishReason = 'length';
  }

  for (const group of wordGroups(text)) {
    if (aborted()) return yield { type: 'done', finishReason: 'aborted', timings: timings() };
    firstTokenAt ??= clock.now();
    yield { type: 'text', text: group };
  }
  for (const call of calls) {
    if (aborted()) return yield { type: 'done', finishReason: 'aborted', timings: timings() };
    firstTokenAt ??= clock.now();
    yield { type: 'tool_call', call };
  }
  if (aborted()) return yield { type: 'done', finishReason: 'aborted', timings: timings() };
  yield {
    type: 'done',
    finishReason,
    usage: {
      promptTokens: promptTokens(request),
      completionTokens:
        estimateTokens(text) + calls.reduce((n, c) => n + estimateTokens(c.name + c.arguments), 0),
    },
    timings: timings(),
  };
}
