import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A test LLM server that speaks the OpenAI chat-completions wire protocol for real: SSE streaming
// (`data: {chat.completion.chunk}` lines ending with `data: [DONE]`), tool calls streamed as
// indexed deltas, usage in a final chunk, OpenAI's error bodies and headers. Tests point the real
// SDK adapter at it, so what they exercise is the adapter and the SDK, not a mock of either.
//
// Each request to POST /v1/chat/completions takes the next scripted behaviour from the queue.
// Delays use real timers, inside the server only; keep them small (tens of ms) in tests.

export interface TestToolCall {
  /** Defaults to `call_<request>_<index>`. */
  id?: string;
  name: string;
  /** An object is sent as JSON; a string is sent as is (so it may be malformed on purpose). */
  arguments: Record<string, unknown> | string;
}

export interface ReplyBehaviour {
  text?: string;
  /** Overrides how `text` is split into deltas (default: word by word). */
  textChunks?: string[];
  toolCalls?: TestToolCall[];
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** Default: a rough count of the request's words and of the deltas sent. */
  usage?: { promptTokens: number; completionTokens: number };
  /** Milliseconds before the response headers are sent (a slow server; trips client timeouts). */
  delayMs?: number;
  /** Milliseconds after the headers and before the first SSE event. */
  firstTokenDelayMs?: number;
  /** Milliseconds between SSE events. */
  chunkDelayMs?: number;
  /** Send this many SSE events (the role chunk counts), then hang with the connection open. */
  hangAfterChunks?: number;
  /** Send this many SSE events, then destroy the connection (a truncated stream). */
  dropAfterChunks?: number;
  /** Send a `data:` line that is not JSON after this many SSE events (default 1 when `badJson`). */
  badJson?: boolean | { afterChunks: number };
  /** Extra response headers. */
  headers?: Record<string, string>;
}

export interface ErrorBehaviour {
  error: {
    status: number;
    message?: string;
    /** OpenAI's `error.type`; defaults by status (`rate_limit_exceeded`, `server_error`...). */
    type?: string;
    code?: string | null;
    /** Sets `retry-after-ms` (the SDK waits this long before retrying). */
    retryAfterMs?: number;
    headers?: Record<string, string>;
  };
  delayMs?: number;
}

/** Close the socket without answering (a connection failure as the client sees it). */
export interface DestroyBehaviour {
  destroy: true;
  delayMs?: number;
}

export type Behaviour = ReplyBehaviour | ErrorBehaviour | DestroyBehaviour;
export type BehaviourStep = Behaviour | ((request: RecordedRequest, index: number) => Behaviour);

export interface RecordedRequest {
  method: string;
  /** e.g. `/v1/chat/completions` */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The `Authorization` header as received (e.g. `Bearer sk-test`). */
  authorization: string | undefined;
  /** The parsed JSON body (undefined when it was not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface TestLLMServerOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get OpenAI's 401. */
  apiKey?: string;
}

export interface TestLLMServer {
  /** e.g. `http://127.0.0.1:PORT/v1`, for the SDK's `baseURL`. */
  baseUrl: string;
  /** Every request received, in order (including rejected ones). */
  requests: RecordedRequest[];
  /** Queues behaviours; each request takes the next one. */
  script(...steps: BehaviourStep[]): void;
  /** Behaviours still queued. */
  pending(): number;
  close(): Promise<void>;
}

const MODEL_DEFAULT = 'test-model';

const defaultErrorType = (status: number): string =>
  status === 429
    ? 'rate_limit_exceeded'
    : status === 401
      ? 'invalid_request_error'
      : status >= 500
        ? 'server_error'
        : 'invalid_request_error';

export async function createTestLLMServer(options: TestLLMServerOptions = {}): Promise<TestLLMServer> {
  const requests: RecordedRequest[] = [];
  const queue: BehaviourStep[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let requestCount = 0;

  const wait = (ms: number | undefined, res: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      if (!ms || ms <= 0) return resolve(!res.destroyed);
      const onClose = () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.off('close', onClose);
        resolve(!res.destroyed);
      }, ms);
      timers.add(timer);
      res.once('close', onClose);
    });

  const sendError = (
    res: ServerResponse,
    status: number,
    message: string,
    type: string,
    code: string | null,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message, type, param: null, code } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const authorization = req.headers.authorization;
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: { ...req.headers },
      authorization,
      body,
    };
    requests.push(recorded);

    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return sendError(res, 404, `Unknown request URL: ${req.method} ${path}`, 'invalid_request_error', null);
    }
    const bearer = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (bearer === undefined || (options.apiKey !== undefined && bearer !== options.apiKey)) {
      return sendError(
        res,
        401,
        bearer === undefined ? 'You did not provide an API key.' : 'Incorrect API key provided.',
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    if (typeof body !== 'object' || body === null) {
      return sendError(
        res,
        400,
        'We could not parse the JSON body of your request.',
        'invalid_request_error',
        null,
      );
    }

    const index = requestCount++;
    const step = queue.shift();
    if (step === undefined) {
      // Not retryable, so a missing script fails the test at once instead of after SDK retries.
      return sendError(res, 500, 'test LLM server: no scripted behaviour left', 'server_error', null, {
        'x-should-retry': 'false',
      });
    }
    const behaviour = typeof step === 'function' ? step(recorded, index) : step;

    if ('destroy' in behaviour) {
      if (await wait(behaviour.delayMs, res)) req.socket.destroy();
      return;
    }
    if ('error' in behaviour) {
      const e = behaviour.error;
      if (!(await wait(behaviour.delayMs, res))) return;
      const headers: Record<string, string> = { ...e.headers };
      if (e.retryAfterMs !== undefined) headers['retry-after-ms'] = String(e.retryAfterMs);
      return sendError(
        res,
        e.status,
        e.message ?? `test error ${e.status}`,
        e.type ?? defaultErrorType(e.status),
        e.code ?? null,
        headers,
      );
    }
    if (!(await wait(behaviour.delayMs, res))) return;
    const request = body as ChatBody;
    if (request.stream === true) await streamReply(res, request, behaviour, index);
    else sendJson(res, request, behaviour, index);
  };

  const streamReply = async (res: ServerResponse, request: ChatBody, b: ReplyBehaviour, index: number) => {
    const events = buildEvents(request, b, index);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...b.headers,
    });
    res.flushHeaders();
    if (!(await wait(b.firstTokenDelayMs, res))) return;
    const badJsonAfter =
      b.badJson === undefined || b.badJson === false
        ? undefined
        : b.badJson === true
          ? 1
          : b.badJson.afterChunks;
    for (let i = 0; i < events.length; i++) {
      if (i === b.hangAfterChunks) return; // keep the connection open; the client must abort
      if (i === b.dropAfterChunks) return void res.socket?.destroy();
      if (i === badJsonAfter) res.write('data: {"id": "chatcmpl-bad", "choices": [\n\n');
      if (i > 0 && !(await wait(b.chunkDelayMs, res))) return;
      res.write(`data: ${events[i]}\n\n`);
    }
    if (b.hangAfterChunks !== undefined && b.hangAfterChunks >= events.length) return;
    res.end('data: [DONE]\n\n');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendError(res, 500, `test LLM server failed: ${String(err)}`, 'server_error', null);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...steps) => void queue.push(...steps),
    pending: () => queue.length,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: { content?: unknown }[];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

const argumentsText = (call: TestToolCall) =>
  typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);

/** Splits a string into up to `parts` non-empty pieces (at least one, possibly empty). */
function splitInto(text: string, parts: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function textDeltas(b: ReplyBehaviour): string[] {
  if (b.textChunks) return b.textChunks;
  if (!b.text) return [];
  return b.text.split(/(?<= )/).filter((w) => w !== '');
}

function finishReasonOf(b: ReplyBehaviour): string {
  return b.finishReason ?? ((b.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

function usageOf(request: ChatBody, b: ReplyBehaviour, completionPieces: number) {
  const promptTokens =
    b.usage?.promptTokens ??
    (request.messages ?? []).reduce(
      (n, m) => n + (typeof m.content === 'string' ? m.content.split(/\s+/).filter(Boolean).length : 0),
      0,
    );
  const completionTokens = b.usage?.completionTokens ?? completionPieces;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

function buildEvents(request: ChatBody, b: ReplyBehaviour, index: number): string[] {
  const id = `chatcmpl-test-${index}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.model ?? MODEL_DEFAULT;
  const includeUsage = request.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    });

  const events = [chunk({ role: 'assistant', content: '', refusal: null })];
  const texts = textDeltas(b);
  for (const text of texts) events.push(chunk({ content: text }));
  let pieces = texts.length;
  (b.toolCalls ?? []).forEach((call, i) => {
    const args = splitInto(argumentsText(call), 3);
    pieces += args.length;
    events.push(
      chunk({
        tool_calls: [
          {
            index: i,
            id: call.id ?? `call_${index}_${i}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
    );
    for (const part of args)
      events.push(chunk({ tool_calls: [{ index: i, function: { arguments: part } }] }));
  });
  events.push(chunk({}, finishReasonOf(b)));
  if (includeUsage) {
    events.push(
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        system_fingerprint: null,
        choices: [],
        usage: usageOf(request, b, pieces),
      }),
    );
  }
  return events;
}

function sendJson(res: ServerResponse, request: ChatBody, b: ReplyBehaviour, index: number) {
  const toolCalls = (b.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: argumentsText(call) },
  }));
  const text = b.textChunks ? b.textChunks.join('') : (b.text ?? '');
  const body = {
    id: `chatcmpl-test-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model ?? MODEL_DEFAULT,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(b),
      },
    ],
    usage: usageOf(request, b, textDeltas(b).length + toolCalls.length),
  };
  res.writeHead(200, { 'content-type': 'application/json', ...b.headers });
  res.end(JSON.stringify(body));
}
