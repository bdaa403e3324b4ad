import { systemClock, type Clock } from '../../../core/index.ts';
import type { ChatChunk, ChatRequest, LLM } from '../types.ts';
import { decide, type Decision } from './decide.ts';
import { streamDecision } from './stream.ts';

// Parley's offline default "model": a deterministic, rule-based dialogue manager behind the LLM
// interface (docs/builtin-model.md). It is not a language model: it reads the prompt, the
// knowledge passages, the history and the tools of each request, recognises a few intents
// (yes/no, choices, goodbye, greetings, questions, end-call reasons, values for extraction
// tools) and composes a short reply. Same request, same reply.

export interface BuiltinLLMOptions {
  clock?: Clock;
}

const FALLBACK: Decision = { text: 'Sorry, could you say that again?', toolCalls: [] };

export function createBuiltinLLM(options: BuiltinLLMOptions = {}): LLM {
  const clock = options.clock ?? systemClock;
  return {
    name: 'builtin',
    chat(request: ChatRequest): AsyncIterable<ChatChunk> {
      let decision: Decision;
      try {
        decision = decide(request);
      } catch {
        // A rule that trips over an unusual prompt must not break a live conversation.
        decision = FALLBACK;
      }
      return streamDecision(decision, request, clock, `call_builtin_${request.messages.length}`);
    },
  };
}
