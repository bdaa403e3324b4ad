import { ParleyError } from '../../core/index.ts';

// The language-model seam (DESIGN.md section 6). A request is a chat: messages plus the tools the
// model may call; the answer is a stream of chunks ending with exactly one `done`. Every adapter
// (OpenAI-compatible servers, the offline builtin, the testing fakes) speaks this and passes the
// same contract suite.

/** A tool call as the model made it; `arguments` is the JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool the model may call: a name, what it is for, and a JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  /** Model name for the adapter; adapters have a default. */
  model?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `required` makes the model call a tool; `none` forbids tools. Default `auto`. */
  toolChoice?: 'auto' | 'none' | 'required';
  temperature?: number;
  maxTokens?: number;
  /** Aborting stops the stream within one chunk; the stream then ends with `aborted`. */
  signal?: AbortSignal;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

/** Milliseconds on the clock the adapter was given. */
export interface ChatTimings {
  startedAt: number;
  /** When the first text or tool call arrived; absent when none did. */
  firstTokenAt?: number;
  endedAt: number;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'aborted';

export type ChatChunk =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; finishReason: FinishReason; usage?: Usage; timings: ChatTimings };

export interface LLM {
  /** The adapter's name, for logs and records (`openai`, `builtin`, `fake`...). */
  readonly name: string;
  /**
   * Streams one completion. Failures before or during the stream throw an `LLMError`; an abort is
   * not a failure (the stream ends with finishReason `aborted`).
   */
  chat(request: ChatRequest): AsyncIterable<ChatChunk>;
}

export type LLMErrorCode =
  'llm_unavailable' | 'llm_timeout' | 'llm_rate_limited' | 'llm_rejected' | 'llm_bad_response';

/** A model failure; `retryable` says whether trying again can help. */
export class LLMError extends ParleyError {
  override name = 'LLMError';
  constructor(description: string, code: LLMErrorCode, retryable: boolean, cause?: unknown) {
    super(description, { code, status: 502, category: 'critical', retryable, cause });
  }
}
