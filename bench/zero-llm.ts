// A zero-latency language model for benchmarks: every request is answered at once with the same
// short reply, streamed as a few text chunks and then `done`. No timers, no I/O, no tool calls, so
// what a chat message costs on top of it is the platform's own work.
import type { ChatChunk, ChatRequest, LLM } from '../src/providers/index.ts';

/** The reply, as the chunks it is streamed in. */
export const ZERO_LLM_CHUNKS: readonly string[] = [
  'Sure, I can help with that. ',
  'The next open slots are Tuesday at 9:30, ',
  'Wednesday at 14:00 and Friday at 11:15. ',
  'Which one works best for you?',
];
export const ZERO_LLM_REPLY = ZERO_LLM_CHUNKS.join('');

const PROMPT_TOKENS_PER_CHAR = 1 / 4;

export function createZeroLatencyLLM(): LLM {
  return {
    name: 'zero-latency',
    async *chat(request: ChatRequest): AsyncGenerator<ChatChunk> {
      const startedAt = Date.now();
      let firstTokenAt: number | undefined;
      for (const text of ZERO_LLM_CHUNKS) {
        if (request.signal?.aborted) {
          yield {
            type: 'done',
            finishReason: 'aborted',
            timings: { startedAt, firstTokenAt, endedAt: Date.now() },
          };
          return;
        }
        firstTokenAt ??= Date.now();
        yield { type: 'text', text };
      }
      let promptChars = 0;
      for (const m of request.messages) promptChars += m.content.length;
      yield {
        type: 'done',
        finishReason: 'stop',
        usage: {
          promptTokens: Math.ceil(promptChars * PROMPT_TOKENS_PER_CHAR),
          completionTokens: Math.ceil(ZERO_LLM_REPLY.length * PROMPT_TOKENS_PER_CHAR),
        },
        timings: { startedAt, firstTokenAt, endedAt: Date.now() },
      };
    },
  };
}
