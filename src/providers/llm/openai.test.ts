import { afterEach, describe, expect, it } from 'vitest';
import { createTestLLMServer, type Behaviour, type TestLLMServer } from '../../../test/llm-server/index.ts';
import type { ScriptedReply } from '../testing/index.ts';
import { runLLMContract } from '../testing/index.ts';
import { collectChat } from './collect.ts';
import { createOpenAILLM, type OpenAILLMOptions } from './openai.ts';
import { LLMError, type ChatChunk, type ChatRequest, type LLMErrorCode } from './types.ts';
import { systemClock } from '../../core/index.ts';

// The OpenAI adapter against a server that speaks the real wire protocol: what is tested is the
// adapter together with the official SDK (HTTP, SSE parsing, retries, timeouts).

const API_KEY = 'sk-test-123';

/** A scripted reply of the contract, as the test server's behaviour. */
function toBehaviour(reply: ScriptedReply): Behaviour {
  if (reply.error) {
    const status: Record<LLMErrorCode, number> = {
      llm_rate_limited: 429,
      llm_unavailable: 503,
      llm_rejected: 400,
      llm_timeout: 408,
      llm_bad_response: 200,
    };
    if (reply.error.code === 'llm_bad_response') return { text: 'broken', badJson: true };
    return { error: { status: status[reply.error.code as LLMErrorCode], message: reply.error.message } };
  }
  return {
    ...(reply.text !== undefined ? { text: reply.text } : {}),
    ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
    ...(reply.finishReason && reply.finishReason !== 'aborted' ? { finishReason: reply.finishReason } : {}),
  };
}

runLLMContract(
  'openai (test server)',
  async () => {
    const server = await createTestLLMServer({ apiKey: API_KEY });
    const llm = createOpenAILLM({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'gpt-test',
      maxRetries: 0,
    });
    return {
      llm,
      script: (replies) => server.script(...replies.map(toBehaviour)),
      close: () => server.close(),
    };
  },
  { errors: true },
);

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<LLMError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LLMError);
  return err as LLMError;
}

describe('createOpenAILLM', () => {
  let server: TestLLMServer;
  const setup = async (options: Partial<OpenAILLMOptions> = {}) => {
    server = await createTestLLMServer({ apiKey: API_KEY });
    return createOpenAILLM({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      model: 'gpt-test',
      maxRetries: 0,
      ...options,
    });
  };
  afterEach(async () => {
    await server?.close();
  });

  it('is named openai', async () => {
    expect((await setup()).name).toBe('openai');
  });

  it('sends the request in OpenAI form: model, messages, tools, tool_choice, streaming, bearer key', async () => {
    const llm = await setup();
    server.script({ text: 'Done.' });
    await collectChat(
      llm.chat({
        messages: [
          { role: 'system', content: 'You book meetings.' },
          { role: 'user', content: 'Book me for Tuesday' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_1', name: 'book', arguments: '{"day":"tuesday"}' }],
          },
          { role: 'tool', toolCallId: 'call_1', content: '{"ok":true}' },
          { role: 'assistant', content: 'Booked.' },
          { role: 'user', content: 'Thanks' },
        ],
        tools: [
          {
            name: 'book',
            description: 'Books a meeting',
            parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
          },
        ],
        toolChoice: 'required',
        temperature: 0.2,
        maxTokens: 100,
      }),
    );
    expect(server.requests).toHaveLength(1);
    const received = server.requests[0]!;
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/v1/chat/completions');
    expect(received.authorization).toBe(`Bearer ${API_KEY}`);
    expect(received.headers['content-type']).toContain('application/json');
    expect(received.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You book meetings.' },
        { role: 'user', content: 'Book me for Tuesday' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'book', arguments: '{"day":"tuesday"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
        { role: 'assistant', content: 'Booked.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'book',
            description: 'Books a meeting',
            parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
          },
        },
      ],
      tool_choice: 'required',
      temperature: 0.2,
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('uses the request model over the default and sends no tools or tool_choice when there are none', async () => {
    const llm = await setup();
    server.script({ text: 'ok' });
    await collectChat(llm.chat(request({ model: 'gpt-other', toolChoice: 'none', tools: [] })));
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.model).toBe('gpt-other');
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('assembles tool-call arguments streamed over several chunks, in index order', async () => {
    const llm = await setup();
    const args = { city: 'São Paulo', days: [1, 2, 3], nested: { deep: 'value "quoted"' } };
    server.script({
      textChunks: ['Check', 'ing the wea', 'ther'],
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: args },
        { id: 'call_b', name: 'no_args', arguments: '' },
      ],
    });
    const chunks: ChatChunk[] = [];
    for await (const chunk of llm.chat(request())) chunks.push(chunk);
    expect(chunks.filter((c) => c.type === 'text').map((c) => c.type === 'text' && c.text)).toEqual([
      'Check',
      'ing the wea',
      'ther',
    ]);
    const calls = chunks.flatMap((c) => (c.type === 'tool_call' ? [c.call] : []));
    expect(calls).toEqual([
      { id: 'call_a', name: 'get_weather', arguments: JSON.stringify(args) },
      { id: 'call_b', name: 'no_args', arguments: '{}' },
    ]);
    expect(chunks.at(-1)).toMatchObject({ type: 'done', finishReason: 'tool_calls' });
  });

  it('reports the usage of the final chunk', async () => {
    const llm = await setup();
    server.script({ text: 'Hello you', usage: { promptTokens: 12, completionTokens: 34 } });
    const result = await collectChat(llm.chat(request()));
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 34 });
  });

  it('takes its timings from the clock it was given', async () => {
    let t = 1_000;
    const llm = await setup({ clock: { now: () => (t += 10), sleep: systemClock.sleep } });
    server.script({ text: 'one two three' });
    const result = await collectChat(llm.chat(request()));
    expect(result.timings.startedAt).toBe(1_010);
    expect(result.timings.firstTokenAt).toBeGreaterThan(result.timings.startedAt);
    expect(result.timings.endedAt).toBeGreaterThan(result.timings.firstTokenAt!);
  });

  describe('retries (by the SDK)', () => {
    it.each([503, 429] as const)('retries a %i and returns the one successful answer', async (status) => {
      const llm = await setup({ maxRetries: 2 });
      server.script({ error: { status, retryAfterMs: 5 } }, { text: 'Second time lucky' });
      const result = await collectChat(llm.chat(request()));
      expect(result.text).toBe('Second time lucky');
      expect(result.finishReason).toBe('stop');
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
    });

    it.each([
      [503, 'llm_unavailable'],
      [429, 'llm_rate_limited'],
    ] as const)('with maxRetries 0 a %i fails at once as %s (retryable)', async (status, code) => {
      const llm = await setup({ maxRetries: 0 });
      server.script({ error: { status, retryAfterMs: 5 } }, { text: 'never asked' });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe(code);
      expect(err.retryable).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('gives up after maxRetries retries', async () => {
      const llm = await setup({ maxRetries: 2 });
      const unavailable = { error: { status: 500, retryAfterMs: 1 } };
      server.script(unavailable, unavailable, unavailable, { text: 'too late' });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_unavailable');
      expect(server.requests).toHaveLength(3);
    });

    it('does not retry a rejected request', async () => {
      const llm = await setup({ maxRetries: 2 });
      server.script({ error: { status: 400, message: 'bad tool schema' } }, { text: 'never asked' });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_rejected');
      expect(server.requests).toHaveLength(1);
    });

    it('retries a dropped connection', async () => {
      // No retry-after header can come with a dropped connection: the SDK's own backoff (~0.5 s) applies.
      const llm = await setup({ maxRetries: 1 });
      server.script({ destroy: true }, { text: 'reconnected' });
      const result = await collectChat(llm.chat(request()));
      expect(result.text).toBe('reconnected');
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('errors', () => {
    it.each([
      [400, 'llm_rejected', false],
      [401, 'llm_rejected', false],
      [403, 'llm_rejected', false],
      [404, 'llm_rejected', false],
      [422, 'llm_rejected', false],
      [429, 'llm_rate_limited', true],
      [500, 'llm_unavailable', true],
      [502, 'llm_unavailable', true],
      [503, 'llm_unavailable', true],
      [408, 'llm_timeout', true],
    ] as const)('maps HTTP %i to %s (retryable %s)', async (status, code, retryable) => {
      const llm = await setup();
      server.script({ error: { status, message: `upstream said ${status}`, code: 'some_code' } });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe(code);
      expect(err.retryable).toBe(retryable);
      expect(err.message).toContain(`upstream said ${status}`);
    });

    it('maps a wrong API key (the server checks the bearer) to llm_rejected', async () => {
      server = await createTestLLMServer({ apiKey: API_KEY });
      const llm = createOpenAILLM({ baseUrl: server.baseUrl, apiKey: 'sk-wrong', model: 'm', maxRetries: 2 });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_rejected');
      expect(err.retryable).toBe(false);
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.authorization).toBe('Bearer sk-wrong');
    });

    it('maps an unreachable server to llm_unavailable (retryable)', async () => {
      const closed = await createTestLLMServer();
      await closed.close();
      server = await createTestLLMServer();
      const llm = createOpenAILLM({ baseUrl: closed.baseUrl, apiKey: API_KEY, model: 'm', maxRetries: 0 });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_unavailable');
      expect(err.retryable).toBe(true);
    });

    it('maps a slow answer to llm_timeout (retryable)', async () => {
      const llm = await setup({ timeoutMs: 50 });
      server.script({ text: 'too slow', delayMs: 200 });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_timeout');
      expect(err.retryable).toBe(true);
    });

    it('maps a stream that stalls before its first token to llm_timeout', async () => {
      const llm = await setup({ timeoutMs: 50 });
      server.script({ text: 'too slow', firstTokenDelayMs: 200 });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_timeout');
      expect(err.retryable).toBe(true);
    });

    it('maps a stream that stalls mid-stream to llm_timeout, after the text it got', async () => {
      const llm = await setup({ timeoutMs: 50 });
      server.script({ text: 'first then nothing', hangAfterChunks: 2 });
      const texts: string[] = [];
      const err = await failure(
        (async () => {
          for await (const chunk of llm.chat(request())) if (chunk.type === 'text') texts.push(chunk.text);
        })(),
      );
      expect(err.code).toBe('llm_timeout');
      expect(texts).toEqual(['first ']);
    });

    it('times out per chunk, not per answer: a slow but steady stream completes', async () => {
      const llm = await setup({ timeoutMs: 150 });
      // 7 events after the first, 25 ms apart: longer than the timeout in all (the server's own
      // pacing guarantees it), never idle that long.
      server.script({ text: 'a steady stream of words', chunkDelayMs: 25 });
      const result = await collectChat(llm.chat(request()));
      expect(result.text).toBe('a steady stream of words');
      expect(result.finishReason).toBe('stop');
    });

    it('maps a stream line that is not JSON to llm_bad_response (not retryable)', async () => {
      const llm = await setup({ maxRetries: 2 });
      server.script({ text: 'one two three', badJson: { afterChunks: 2 } });
      const texts: string[] = [];
      const err = await failure(
        (async () => {
          for await (const chunk of llm.chat(request())) if (chunk.type === 'text') texts.push(chunk.text);
        })(),
      );
      expect(err.code).toBe('llm_bad_response');
      expect(err.retryable).toBe(false);
      expect(texts).toEqual(['one ']);
      expect(server.requests).toHaveLength(1);
    });

    it('maps tool arguments that are not JSON to llm_bad_response', async () => {
      const llm = await setup();
      server.script({ toolCalls: [{ name: 'get_weather', arguments: '{"city": "Par' }] });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_bad_response');
      expect(err.retryable).toBe(false);
      expect(err.message).toContain('get_weather');
    });

    it('maps a stream cut before the model finished to llm_unavailable (retryable)', async () => {
      const llm = await setup();
      server.script({ text: 'one two three four', dropAfterChunks: 3 });
      const err = await failure(collectChat(llm.chat(request())));
      expect(err.code).toBe('llm_unavailable');
      expect(err.retryable).toBe(true);
    });
  });

  describe('abort', () => {
    it('ends promptly with done (aborted) when aborted while the server hangs mid-stream', async () => {
      const llm = await setup();
      server.script({ text: 'one two three four', hangAfterChunks: 3 });
      const controller = new AbortController();
      const iterator = llm.chat(request({ signal: controller.signal }))[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toEqual({ type: 'text', text: 'one ' });
      expect((await iterator.next()).value).toEqual({ type: 'text', text: 'two ' });
      const pending = iterator.next(); // waits on the hanging server, which never sends more
      controller.abort();
      const last = await pending; // only the abort can end this wait
      expect(last.value).toMatchObject({ type: 'done', finishReason: 'aborted' });
      expect((await iterator.next()).done).toBe(true);
    });

    it('ends with done (aborted) when aborted before the answer starts', async () => {
      const llm = await setup();
      const controller = new AbortController();
      server.script(() => {
        controller.abort(); // the request has reached the server, which now takes its time
        return { text: 'late', delayMs: 200 };
      });
      const result = await collectChat(llm.chat(request({ signal: controller.signal })));
      expect(result.finishReason).toBe('aborted');
      expect(result.text).toBe('');
    });

    it('sends nothing when the signal has already fired', async () => {
      const llm = await setup();
      const result = await collectChat(llm.chat(request({ signal: AbortSignal.abort() })));
      expect(result.finishReason).toBe('aborted');
      expect(server.requests).toHaveLength(0);
    });

    it('does not hang when the consumer stops reading early', async () => {
      const llm = await setup();
      server.script({ text: 'one two three', hangAfterChunks: 2 }, { text: 'next' });
      for await (const chunk of llm.chat(request())) {
        expect(chunk).toEqual({ type: 'text', text: 'one ' });
        break;
      }
      const result = await collectChat(llm.chat(request()));
      expect(result.text).toBe('next');
    });
  });
});
