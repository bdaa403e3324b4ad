import { systemClock, type Clock } from '../../core/index.ts';
import type { ChatChunk, ChatRequest, FinishReason, LLM, LLMError, ToolCall } from '../llm/types.ts';

// A scripted LLM for tests: each call to `chat` plays the next step of the script (or asks a
// function for it), streaming text word by word. It records every request so tests can assert
// what the engine sent (prompt, history, tools).

export interface ScriptedReply {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> | string }[];
  /** Thrown instead of answering (before any chunk). */
  error?: LLMError;
  finishReason?: FinishReason;
}

export type ScriptStep = ScriptedReply | ((request: ChatRequest, callIndex: number) => ScriptedReply);

export interface ScriptedLLM extends LLM {
  readonly requests: ChatRequest[];
}

export function createScriptedLLM(
  steps: ScriptStep[],
  options: { clock?: Clock; repeatLast?: boolean } = {},
): ScriptedLLM {
  const clock = options.clock ?? systemClock;
  const requests: ChatRequest[] = [];
  let calls = 0;
  return {
    name: 'scripted',
    requests,
    chat(request) {
      const index = calls++;
      requests.push(structuredClone({ ...request, signal: undefined }));
      const step = steps[Math.min(index, options.repeatLast ? steps.length - 1 : index)];
      return (async function* stream(): AsyncGenerator<ChatChunk> {
        const startedAt = clock.now();
        if (step === undefined) throw new Error(`scripted LLM has no step ${index + 1}`);
        const reply = typeof step === 'function' ? step(request, index) : step;
        if (reply.error) throw reply.error;
        let firstTokenAt: number | undefined;
        const words = (reply.text ?? '').split(/(?<= )/).filter((w) => w !== '');
        const calls: ToolCall[] = (reply.toolCalls ?? []).map((c, i) => ({
          id: `call_${index}_${i}`,
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
        }));
        const pieces: ChatChunk[] = [
          ...words.map((text) => ({ type: 'text' as const, text })),
          ...calls.map((call) => ({ type: 'tool_call' as const, call })),
        ];
        for (const piece of pieces) {
          // An abort is seen between chunks, as a streaming adapter sees it.
          if (request.signal?.aborted) {
            return yield {
              type: 'done',
              finishReason: 'aborted',
              timings: { startedAt, firstTokenAt, endedAt: clock.now() },
            };
          }
          firstTokenAt ??= clock.now();
          yield piece;
        }
        yield {
          type: 'done',
          finishReason: reply.finishReason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
          usage: { promptTokens: 0, completionTokens: words.length },
          timings: { startedAt, firstTokenAt, endedAt: clock.now() },
        };
      })();
    },
  };
}

/**
 * A model that calls the tool `toolName` on the first turn it is offered (until a tool answered),
 * and otherwise answers `reply`: an agent with that action uses it at once (a transfer test).
 */
export function createToolCallingLLM(toolName: string, reply = 'OK.'): ScriptedLLM {
  return createScriptedLLM(
    [
      (request) =>
        request.tools?.some((tool) => tool.name === toolName) &&
        !request.messages.some((m) => m.role === 'tool')
          ? { toolCalls: [{ name: toolName, arguments: {} }] }
          : { text: reply },
    ],
    { repeatLast: true },
  );
}
