import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LLMError, type ChatChunk, type ChatRequest, type LLM, type LLMErrorCode } from '../llm/types.ts';
import type { ScriptedReply } from './scripted-llm.ts';

// The LLM contract (DESIGN.md section 6): what every adapter promises, checked the same way for
// each. An implementation passes `make`, which builds a fresh subject whose replies can be
// scripted; each scripted reply answers the next `chat` call.

export interface LLMContractSubject {
  llm: LLM;
  /** Queues replies; each `chat` call plays the next one. */
  script: (replies: ScriptedReply[]) => void;
  close(): Promise<void>;
}

export interface LLMContractOptions {
  /**
   * Also check that scripted `error` replies surface as `LLMError`s with the same code and
   * retryability. Only for subjects whose `script` can produce failures.
   */
  errors?: boolean;
}

const TEXT = 'The quick brown fox jumps over the lazy dog and keeps on running.';
const CALLS = [
  { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } },
  { name: 'book_meeting', arguments: { when: '2026-01-02T10:00:00Z', attendees: ['a@example.com'] } },
];

const baseRequest = (signal?: AbortSignal): ChatRequest => ({
  messages: [
    { role: 'system', content: 'You are a test.' },
    { role: 'user', content: 'Hello there' },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
    { name: 'book_meeting', description: 'Books a meeting', parameters: { type: 'object', properties: {} } },
  ],
  ...(signal ? { signal } : {}),
});

type Done = Extract<ChatChunk, { type: 'done' }>;

/** Reads a whole stream and checks its shape: only the last chunk is a `done`, nothing follows it. */
async function readAll(stream: AsyncIterable<ChatChunk>): Promise<{ chunks: ChatChunk[]; done: Done }> {
  const chunks: ChatChunk[] = [];
  const iterator = stream[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    if (next.value.type === 'done') {
      // Nothing may follow `done`: the iterator must be finished.
      const after = await iterator.next();
      expect(after.done).toBe(true);
      break;
    }
  }
  const last = chunks.at(-1);
  expect(last?.type).toBe('done');
  expect(chunks.filter((c) => c.type === 'done')).toHaveLength(1);
  checkDone(last as Done);
  return { chunks, done: last as Done };
}

function checkDone(done: Done) {
  const { startedAt, firstTokenAt, endedAt } = done.timings;
  expect(Number.isFinite(startedAt)).toBe(true);
  expect(endedAt).toBeGreaterThanOrEqual(startedAt);
  if (firstTokenAt !== undefined) {
    expect(firstTokenAt).toBeGreaterThanOrEqual(startedAt);
    expect(firstTokenAt).toBeLessThanOrEqual(endedAt);
  }
  if (done.usage) {
    expect(Number.isInteger(done.usage.promptTokens) && done.usage.promptTokens >= 0).toBe(true);
    expect(Number.isInteger(done.usage.completionTokens) && done.usage.completionTokens >= 0).toBe(true);
  }
}

const textOf = (chunks: ChatChunk[]) => chunks.map((c) => (c.type === 'text' ? c.text : '')).join('');
const callsOf = (chunks: ChatChunk[]) => chunks.flatMap((c) => (c.type === 'tool_call' ? [c.call] : []));

export function runLLMContract(
  name: string,
  make: () => Promise<LLMContractSubject>,
  options: LLMContractOptions = {},
): void {
  describe(`LLM contract: ${name}`, () => {
    let subject: LLMContractSubject;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject.close();
    });

    it('has a name', () => {
      expect(typeof subject.llm.name).toBe('string');
      expect(subject.llm.name.length).toBeGreaterThan(0);
    });

    it('streams a text reply as text chunks that join to the text, then one done (stop)', async () => {
      subject.script([{ text: TEXT }]);
      const { chunks, done } = await readAll(subject.llm.chat(baseRequest()));
      const texts = chunks.filter((c) => c.type === 'text');
      expect(texts.length).toBeGreaterThanOrEqual(1);
      expect(texts.every((c) => c.type === 'text' && c.text.length > 0)).toBe(true);
      expect(textOf(chunks)).toBe(TEXT);
      expect(callsOf(chunks)).toEqual([]);
      expect(done.finishReason).toBe('stop');
      expect(done.timings.firstTokenAt).toBeDefined();
      const { startedAt, firstTokenAt, endedAt } = done.timings;
      expect(startedAt).toBeLessThanOrEqual(firstTokenAt ?? Number.NaN);
      expect(firstTokenAt).toBeLessThanOrEqual(endedAt);
    });

    it('yields complete tool calls with JSON arguments and finishReason tool_calls', async () => {
      subject.script([{ toolCalls: CALLS }]);
      const { chunks, done } = await readAll(subject.llm.chat(baseRequest()));
      const calls = callsOf(chunks);
      expect(calls.map((c) => c.name)).toEqual(CALLS.map((c) => c.name));
      calls.forEach((call, i) => {
        expect(call.id.length).toBeGreaterThan(0);
        expect(JSON.parse(call.arguments)).toEqual(CALLS[i]?.arguments);
      });
      expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
      expect(textOf(chunks)).toBe('');
      expect(done.finishReason).toBe('tool_calls');
      expect(done.timings.firstTokenAt).toBeDefined();
    });

    it('streams text and tool calls of the same reply', async () => {
      subject.script([{ text: 'Let me check that for you.', toolCalls: CALLS.slice(0, 1) }]);
      const { chunks, done } = await readAll(subject.llm.chat(baseRequest()));
      expect(textOf(chunks)).toBe('Let me check that for you.');
      const calls = callsOf(chunks);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.name).toBe('get_weather');
      expect(JSON.parse(calls[0]?.arguments ?? '')).toEqual(CALLS[0]?.arguments);
      expect(done.finishReason).toBe('tool_calls');
    });

    it('reports finishReason length when the reply was cut at the token limit', async () => {
      subject.script([{ text: 'A reply that was cut', finishReason: 'length' }]);
      const { chunks, done } = await readAll(subject.llm.chat({ ...baseRequest(), maxTokens: 5 }));
      expect(textOf(chunks)).toBe('A reply that was cut');
      expect(done.finishReason).toBe('length');
    });

    it('answers consecutive requests independently, in order', async () => {
      subject.script([{ text: 'first answer' }, { text: 'second answer' }]);
      const first = await readAll(subject.llm.chat(baseRequest()));
      const second = await readAll(subject.llm.chat(baseRequest()));
      expect(textOf(first.chunks)).toBe('first answer');
      expect(textOf(second.chunks)).toBe('second answer');
      expect(second.done.timings.startedAt).toBeGreaterThanOrEqual(first.done.timings.startedAt);
    });

    it('ends with done (aborted) without throwing when the signal fires mid-stream', async () => {
      subject.script([{ text: TEXT }]);
      const controller = new AbortController();
      const iterator = subject.llm.chat(baseRequest(controller.signal))[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).toBe(false);
      expect(first.value?.type).toBe('text');
      controller.abort();
      // Within one chunk: at most one more non-final chunk, then done (aborted), then nothing.
      const rest: ChatChunk[] = [];
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        rest.push(next.value);
        if (next.value.type === 'done') break;
      }
      const done = rest.at(-1);
      expect(done?.type).toBe('done');
      expect(rest.length).toBeLessThanOrEqual(2);
      if (done?.type === 'done') {
        expect(done.finishReason).toBe('aborted');
        checkDone(done);
      }
      expect((await iterator.next()).done).toBe(true);
      const streamed = textOf([first.value as ChatChunk, ...rest]);
      expect(streamed.length).toBeLessThan(TEXT.length);
      expect(TEXT.startsWith(streamed)).toBe(true);
    });

    it('ends at once with done (aborted) when the signal has already fired', async () => {
      subject.script([{ text: TEXT, toolCalls: CALLS }]);
      const controller = new AbortController();
      controller.abort();
      const { chunks, done } = await readAll(subject.llm.chat(baseRequest(controller.signal)));
      expect(chunks).toHaveLength(1);
      expect(done.finishReason).toBe('aborted');
      expect(done.timings.firstTokenAt).toBeUndefined();
    });

    if (options.errors) {
      const cases: [LLMErrorCode, boolean][] = [
        ['llm_rate_limited', true],
        ['llm_unavailable', true],
        ['llm_rejected', false],
      ];
      for (const [code, retryable] of cases) {
        it(`surfaces a failure as an LLMError (${code}, retryable ${retryable})`, async () => {
          subject.script([{ error: new LLMError(`scripted ${code}`, code, retryable) }]);
          const failure = await readAll(subject.llm.chat(baseRequest())).then(
            () => undefined,
            (err: unknown) => err,
          );
          expect(failure).toBeInstanceOf(LLMError);
          expect((failure as LLMError).code).toBe(code);
          expect((failure as LLMError).retryable).toBe(retryable);
        });
      }
    }
  });
}
