import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { systemClock, type Clock } from '../../core/index.ts';
import {
  LLMError,
  type ChatChunk,
  type ChatMessage,
  type ChatRequest,
  type FinishReason,
  type LLM,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from './types.ts';

// The adapter for OpenAI and OpenAI-compatible chat-completions servers, on the official SDK.
// Retries of retryable failures (429, 5xx, connection errors, timeouts before the answer starts)
// are the SDK's (`maxRetries`); once the stream has started nothing is retried here. Every failure
// leaves as an `LLMError`; an abort is not a failure: the stream ends with `done` `aborted`.

export interface OpenAILLMOptions {
  /** e.g. `https://api.openai.com/v1` */
  baseUrl: string;
  apiKey: string;
  /** Used when the request names no model. */
  model: string;
  clock?: Clock;
  /** Retries the SDK makes on retryable failures. Default 2. */
  maxRetries?: number;
  /**
   * Milliseconds to wait for the answer to start (per attempt, by the SDK) and, once it has, for
   * each next chunk of the stream. Default 30000.
   */
  timeoutMs?: number;
}

export function createOpenAILLM(options: OpenAILLMOptions): LLM {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    maxRetries: options.maxRetries ?? 2,
    timeout: timeoutMs,
    // Failures reach the caller as LLMErrors; the SDK's own console logging would only duplicate them.
    logLevel: 'off',
  });

  async function* chat(request: ChatRequest): AsyncGenerator<ChatChunk> {
    const startedAt = clock.now();
    let firstTokenAt: number | undefined;
    const done = (finishReason: FinishReason, usage?: Usage): ChatChunk => ({
      type: 'done',
      finishReason,
      ...(usage ? { usage } : {}),
      timings: { startedAt, firstTokenAt, endedAt: clock.now() },
    });
    const signal = request.signal;
    if (signal?.aborted) {
      yield done('aborted');
      return;
    }

    // One controller for the HTTP exchange: aborted by the caller's signal, by the idle timer, or
    // when the consumer stops reading early.
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let idleTimer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const armIdleTimer = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
    };

    try {
      let stream: AsyncIterable<ChatCompletionChunk>;
      try {
        stream = await client.chat.completions.create(toOpenAIRequest(request, options.model), {
          signal: controller.signal,
        });
      } catch (err) {
        if (signal?.aborted) {
          yield done('aborted');
          return;
        }
        throw toLLMError(err);
      }

      const calls = new Map<number, { id: string; name: string; arguments: string }>();
      let finish: string | undefined;
      let usage: Usage | undefined;
      armIdleTimer();
      try {
        for await (const chunk of stream) {
          if (signal?.aborted) break;
          armIdleTimer();
          if (chunk.usage) {
            usage = {
              promptTokens: chunk.usage.prompt_tokens,
              completionTokens: chunk.usage.completion_tokens,
            };
          }
          // One completion per request (n = 1): only choice 0 matters.
          const choice = chunk.choices.find((c) => c.index === 0);
          if (!choice) continue;
          for (const delta of choice.delta.tool_calls ?? []) {
            const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
            if (delta.id) call.id = delta.id;
            if (delta.function?.name) call.name += delta.function.name;
            if (delta.function?.arguments) call.arguments += delta.function.arguments;
            calls.set(delta.index, call);
            firstTokenAt ??= clock.now();
          }
          if (choice.finish_reason) finish = choice.finish_reason;
          const text = choice.delta.content;
          if (text) {
            firstTokenAt ??= clock.now();
            yield { type: 'text', text };
            if (signal?.aborted) break;
          }
        }
      } catch (err) {
        if (signal?.aborted) {
          yield done('aborted');
          return;
        }
        if (timedOut) throw timeoutError(timeoutMs, err);
        throw toLLMError(err);
      }
      if (signal?.aborted) {
        yield done('aborted');
        return;
      }
      // The SDK ends a stream quietly when its request is aborted, so the idle timer shows here.
      if (timedOut) throw timeoutError(timeoutMs);
      if (finish === undefined) {
        throw new LLMError('the model stream ended before the model finished', 'llm_unavailable', true);
      }

      const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => completeCall(call));
      for (const call of toolCalls) {
        if (signal?.aborted) {
          yield done('aborted');
          return;
        }
        yield { type: 'tool_call', call };
      }
      if (signal?.aborted) {
        yield done('aborted');
        return;
      }
      yield done(toFinishReason(finish, toolCalls.length > 0), usage);
    } finally {
      clearTimeout(idleTimer);
      signal?.removeEventListener('abort', onAbort);
      // Releases the connection when the consumer stopped reading early (a no-op otherwise).
      controller.abort();
    }
  }

  return { name: 'openai', chat };
}

function toOpenAIRequest(request: ChatRequest, defaultModel: string): ChatCompletionCreateParamsStreaming {
  const tools = request.tools && request.tools.length > 0 ? request.tools.map(toOpenAITool) : undefined;
  return {
    model: request.model ?? defaultModel,
    messages: request.messages.map(toOpenAIMessage),
    ...(tools ? { tools } : {}),
    // OpenAI rejects tool_choice without tools.
    ...(tools && request.toolChoice ? { tool_choice: request.toolChoice } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    // `max_tokens` rather than `max_completion_tokens`: the one OpenAI-compatible servers all know.
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function toOpenAITool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function completeCall(call: { id: string; name: string; arguments: string }): ToolCall {
  if (call.id === '' || call.name === '') {
    throw new LLMError('the model sent a tool call without an id or a name', 'llm_bad_response', false);
  }
  // A call of a function without parameters may come with no argument text at all.
  const args = call.arguments.trim() === '' ? '{}' : call.arguments;
  try {
    JSON.parse(args);
  } catch (err) {
    throw new LLMError(
      `the model called tool '${call.name}' with arguments that are not JSON`,
      'llm_bad_response',
      false,
      err,
    );
  }
  return { id: call.id, name: call.name, arguments: args };
}

function toFinishReason(reason: string, hasToolCalls: boolean): FinishReason {
  if (reason === 'length') return 'length';
  // Some compatible servers say `stop` after tool calls; the calls are what counts.
  if (reason === 'tool_calls' || reason === 'function_call' || hasToolCalls) return 'tool_calls';
  return 'stop'; // `stop`, `content_filter` and anything new
}

function timeoutError(timeoutMs: number, cause?: unknown): LLMError {
  return new LLMError(`the model did not answer within ${timeoutMs} ms`, 'llm_timeout', true, cause);
}

function toLLMError(err: unknown): LLMError {
  if (err instanceof LLMError) return err;
  if (err instanceof APIConnectionTimeoutError) {
    return new LLMError('the model did not answer in time', 'llm_timeout', true, err);
  }
  if (err instanceof APIUserAbortError) {
    // Only our own controller is left to have aborted (the caller's abort is handled before).
    return new LLMError('the model request was cancelled', 'llm_unavailable', true, err);
  }
  if (err instanceof APIConnectionError) {
    return new LLMError(`could not reach the model: ${err.message}`, 'llm_unavailable', true, err);
  }
  if (err instanceof APIError) {
    const status = err.status;
    const what = `the model server answered ${status ?? 'an error'}: ${err.message}`;
    if (status === undefined) return new LLMError(what, 'llm_unavailable', true, err); // an error event mid-stream
    if (status === 429) return new LLMError(what, 'llm_rate_limited', true, err);
    if (status === 408) return new LLMError(what, 'llm_timeout', true, err);
    if (status >= 500 || status === 409) return new LLMError(what, 'llm_unavailable', true, err);
    return new LLMError(what, 'llm_rejected', false, err);
  }
  if (err instanceof SyntaxError) {
    return new LLMError('the model stream was not valid JSON', 'llm_bad_response', false, err);
  }
  // Anything else comes from the transport (e.g. the connection dropped mid-stream).
  const message = err instanceof Error ? err.message : String(err);
  return new LLMError(`the model stream failed: ${message}`, 'llm_unavailable', true, err);
}
