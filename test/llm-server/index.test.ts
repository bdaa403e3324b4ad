import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestLLMServer, type TestLLMServer } from './index.ts';

// The test LLM server itself: its wire format is what the OpenAI adapter tests rely on.

let server: TestLLMServer;
afterEach(async () => {
  await server?.close();
});

const post = (body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-x' }) =>
  fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The `data:` payloads of an SSE body. */
const dataLines = (sse: string) =>
  sse
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));

describe('test LLM server', () => {
  it('listens on 127.0.0.1 under /v1', async () => {
    server = await createTestLLMServer();
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('streams text as chat.completion.chunk SSE events ending with [DONE], usage only when asked', async () => {
    server = await createTestLLMServer();
    server.script({ text: 'Hello there friend' }, { text: 'Hello there friend' });
    const withUsage = await post({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(withUsage.status).toBe(200);
    expect(withUsage.headers.get('content-type')).toContain('text/event-stream');
    const lines = dataLines(await withUsage.text());
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'm')).toBe(true);
    const contents = chunks.map((c) => c.choices[0]?.delta?.content ?? '');
    expect(contents.filter((t: string) => t !== '').length).toBe(3);
    expect(contents.join('')).toBe('Hello there friend');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 3 } });

    const without = await post({ model: 'm', messages: [], stream: true });
    const plain = dataLines(await without.text())
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    expect(plain.some((c) => 'usage' in c)).toBe(false);
  });

  it('streams tool calls as indexed deltas with the arguments split over chunks', async () => {
    server = await createTestLLMServer();
    server.script({
      toolCalls: [{ id: 'call_x', name: 'lookup', arguments: { query: 'something long enough' } }],
    });
    const res = await post({ model: 'm', messages: [], stream: true });
    const chunks = dataLines(await res.text())
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(deltas[0]).toEqual({
      index: 0,
      id: 'call_x',
      type: 'function',
      function: { name: 'lookup', arguments: '' },
    });
    const parts = deltas.slice(1).map((d: { function: { arguments: string } }) => d.function.arguments);
    expect(parts.length).toBeGreaterThan(1);
    expect(JSON.parse(parts.join(''))).toEqual({ query: 'something long enough' });
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('answers non-streamed requests with one chat.completion JSON (read by the SDK)', async () => {
    server = await createTestLLMServer({ apiKey: 'sk-good' });
    server.script({ text: 'Plain answer', toolCalls: [{ name: 'f', arguments: { a: 1 } }] });
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-good', maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'two words' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-x');
    expect(completion.choices[0]?.message.content).toBe('Plain answer');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_0_0', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage).toMatchObject({ prompt_tokens: 2 });
    expect(server.requests[0]?.authorization).toBe('Bearer sk-good');
  });

  it('checks the bearer key and records it', async () => {
    server = await createTestLLMServer({ apiKey: 'sk-good' });
    const missing = await post({ model: 'm', messages: [] }, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
    const wrong = await post({ model: 'm', messages: [] }, { authorization: 'Bearer sk-bad' });
    expect(wrong.status).toBe(401);
    expect(server.requests.map((r) => r.authorization)).toEqual([undefined, 'Bearer sk-bad']);
  });

  it("answers scripted errors with OpenAI's error body and headers", async () => {
    server = await createTestLLMServer();
    server.script({ error: { status: 429, message: 'slow down', retryAfterMs: 20 } });
    const res = await post({ model: 'm', messages: [] });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after-ms')).toBe('20');
    expect(await res.json()).toEqual({
      error: { message: 'slow down', type: 'rate_limit_exceeded', param: null, code: null },
    });
  });

  it('fails loudly, without inviting retries, when nothing is scripted', async () => {
    server = await createTestLLMServer();
    const res = await post({ model: 'm', messages: [] });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('no scripted');
  });

  it('answers unknown paths with 404', async () => {
    server = await createTestLLMServer();
    const res = await fetch(`${server.baseUrl}/models`, { headers: { authorization: 'Bearer k' } });
    expect(res.status).toBe(404);
  });

  it('gives behaviour functions the recorded request', async () => {
    server = await createTestLLMServer();
    server.script((req, index) => ({ text: `${req.body.model} #${index}` }));
    const res = await post({ model: 'echo', messages: [] });
    expect(await res.json()).toMatchObject({ choices: [{ message: { content: 'echo #0' } }] });
    expect(server.pending()).toBe(0);
  });

  it('sends a bad JSON line when asked, and closes while a stream hangs', async () => {
    server = await createTestLLMServer();
    server.script({ text: 'a b', badJson: true }, { text: 'a b c', hangAfterChunks: 2 });
    const bad = dataLines(await (await post({ model: 'm', messages: [], stream: true })).text());
    expect(() => JSON.parse(bad[1] ?? '')).toThrow();
    const hanging = await post({ model: 'm', messages: [], stream: true });
    const reader = hanging.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('chat.completion.chunk');
    await server.close();
    await expect(reader.read()).rejects.toThrow();
  });
});
