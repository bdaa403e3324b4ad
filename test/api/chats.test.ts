import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { FALLBACK_LLM_FAILURE } from '../../src/api/index.ts';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { LLMError, type ChatRequest, type LLM } from '../../src/providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../../src/providers/testing/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import {
  ISO,
  MISSING_ID,
  expectErrorBody,
  expectFieldError,
  expectNotFound,
  type Json,
} from '../assertions.ts';

// The chat resource (spec "Chats", WIRE.md section 6), end to end over a real store, once per
// dialect, with a scripted model.

const START = Date.UTC(2026, 4, 1, 12);

/** What the user said last in a model request. */
function lastUser(request: ChatRequest): string {
  const message = request.messages.filter((m) => m.role === 'user').at(-1);
  return message?.content ?? '';
}

/**
 * A scripted model: each call takes the next queued reply, else echoes the user. `beforeCall`
 * runs (and is awaited) before each call, to interleave other work deterministically.
 */
function testModel(clock: ManualClock) {
  const queue: ScriptedReply[] = [];
  const state: { beforeCall: (() => Promise<void>) | null; inFlight: number; maxInFlight: number } = {
    beforeCall: null,
    inFlight: 0,
    maxInFlight: 0,
  };
  const scripted = createScriptedLLM([(request) => queue.shift() ?? { text: `echo ${lastUser(request)}` }], {
    clock,
    repeatLast: true,
  });
  const llm: LLM = {
    name: 'test',
    async *chat(request) {
      state.inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        const hook = state.beforeCall;
        if (hook) await hook();
        yield* scripted.chat(request);
      } finally {
        state.inFlight -= 1;
      }
    },
  };
  return { llm, queue, state, requests: scripted.requests };
}

forEachStore('chats API', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let model: ReturnType<typeof testModel>;
  let agentId: string;

  beforeAll(async () => {
    clock = createManualClock(START);
    model = testModel(clock);
    t = await createTestApi(target, { clock, llm: model.llm });
    agentId = await createAgent({
      agent: { prompt: 'You help {name}.', greeting_message: 'Hello {name}!' },
    });
  });
  afterAll(() => t.close());
  beforeEach(() => {
    model.queue.length = 0;
    model.state.beforeCall = null;
    model.state.maxInFlight = 0;
  });

  async function createAgent(overrides: Json = {}, key?: string): Promise<string> {
    const res = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ type: 'chat', ...overrides }),
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.model_id as string;
  }

  const create = (id: string, payload: Json, key?: string | null, remoteAddress?: string) =>
    t.call({
      method: 'POST',
      url: `/v2/chat/${id}`,
      payload,
      key,
      ...(remoteAddress ? { remoteAddress } : {}),
    });
  const send = (id: string, message: string, key?: string | null) =>
    t.call({ method: 'POST', url: `/v2/chat/${id}/messages`, payload: { message }, key });
  const get = (id: string, key?: string) => t.call({ method: 'GET', url: `/v2/chat/${id}`, key });

  async function newChat(metadata: Json = { name: 'Ann' }, agent = agentId): Promise<string> {
    const id = randomUUID();
    const res = await create(id, { model_id: agent, metadata });
    expect(res.statusCode, res.body).toBe(200);
    return id;
  }

  function okBody(res: LightMyRequestResponse): Json {
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { status: string; response: Json };
    expect(Object.keys(body)).toEqual(['status', 'response']);
    expect(body.status).toBe('ok');
    return body.response;
  }

  describe('create', () => {
    it('creates the chat with the greeting as initial_message', async () => {
      const id = randomUUID();
      const res = await create(id, { model_id: agentId, metadata: { name: 'Ann', vip: true, n: 3 } });
      const chat = okBody(res);
      const at = new Date(START).toISOString();
      expect(chat).toEqual({
        chat_id: id,
        model_id: agentId,
        chat_status: 'ongoing',
        metadata: { name: 'Ann', vip: true, n: 3 },
        channel: 'api',
        conversation_history: [
          {
            agent_id: agentId,
            message: 'Hello Ann!',
            timestamp: at,
            turn_number: 0,
            current_state: 'ongoing',
          },
        ],
        initial_message: {
          agent_message: 'Hello Ann!',
          current_state: 'ongoing',
          timestamp: at,
          turn_number: 0,
        },
        start_timestamp: at,
        transcript: 'Agent: Hello Ann!',
        executed_actions: {},
        action_execution_timeline: [],
        collected_variables: null,
        agent_version: 'draft', // a Parley addition (docs/agent-versions.md)
        fsm_log: null,
      });
      expect(okBody(await get(id))).toEqual(chat);
    });

    it('has no initial_message when the agent waits for the user', async () => {
      const human = await createAgent({ agent: { prompt: 'p', greeting_message_mode: 'human' } });
      const id = randomUUID();
      const chat = okBody(await create(id, { model_id: human }));
      expect(chat.initial_message).toBeNull();
      expect(chat.conversation_history).toEqual([]);
      expect(chat.metadata).toEqual({});
      expect(chat.transcript).toBe('');
    });

    it('400s naming chat_id when it is not a UUID', async () => {
      expectFieldError(await create('not-a-uuid', { model_id: agentId }), ['path', 'chat_id']);
    });

    it('400s naming model_id when it is missing or not a string', async () => {
      expectFieldError(await create(randomUUID(), {}), ['body', 'model_id']);
      expectFieldError(await create(randomUUID(), { model_id: 5 }), ['body', 'model_id']);
      expectFieldError(await create(randomUUID(), { model_id: agentId, metadata: 'x' }), [
        'body',
        'metadata',
      ]);
    });

    it('400s conflict for an existing id, also one in another workspace', async () => {
      const id = await newChat();
      const d = expectErrorBody(await create(id, { model_id: agentId }), 400, 'conflict');
      expect(d.description).toContain(id);
      const otherAgent = await createAgent({ agent: { greeting_message: 'Hi' } }, t.other.key);
      expectErrorBody(await create(id, { model_id: otherAgent }, t.other.key), 400, 'conflict');
      // The original chat is untouched.
      expect(okBody(await get(id)).model_id).toBe(agentId);
    });

    it("400s not_found for an unknown agent or another workspace's agent", async () => {
      const d = expectNotFound(await create(randomUUID(), { model_id: MISSING_ID }), 400);
      expect(d.description).toContain(MISSING_ID);
      const otherAgent = await createAgent({ agent: { greeting_message: 'Hi' } }, t.other.key);
      expectNotFound(await create(randomUUID(), { model_id: otherAgent }), 400);
    });
  });

  describe('get and delete', () => {
    it("400s not_found for an unknown chat and for another workspace's chat", async () => {
      expectNotFound(await get(MISSING_ID), 400);
      const id = await newChat();
      expectNotFound(await get(id, t.other.key), 400);
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/chat/${id}`, key: t.other.key }), 400);
      expectNotFound(await send(id, 'hi', t.other.key), 400);
      expect(okBody(await get(id)).chat_status).toBe('ongoing');
    });

    it('400s naming chat_id for a non-UUID id', async () => {
      expectFieldError(await get('123'), ['path', 'chat_id']);
      expectFieldError(await t.call({ method: 'DELETE', url: '/v2/chat/123' }), ['path', 'chat_id']);
      expectFieldError(await send('123', 'hi'), ['path', 'chat_id']);
    });

    it('cancels a chat, which then takes no messages', async () => {
      const id = await newChat();
      const res = await t.call({ method: 'DELETE', url: `/v2/chat/${id}` });
      expect(okBody(res)).toEqual({ chat_id: id, chat_status: 'cancelled' });
      expect(okBody(await get(id)).chat_status).toBe('cancelled');
      const d = expectErrorBody(await send(id, 'hello?'), 400, 'conflict');
      expect(d.description).toContain('cancelled');
      expectNotFound(await t.call({ method: 'DELETE', url: `/v2/chat/${MISSING_ID}` }), 400);
    });
  });

  describe('messages', () => {
    it('runs a multi-turn conversation with history and transcript', async () => {
      const id = await newChat();
      clock.advance(1000);
      const first = okBody(await send(id, 'What do you sell?'));
      expect(first).toEqual({
        agent_message: 'echo What do you sell?',
        current_state: 'ongoing',
        timestamp: new Date(clock.now()).toISOString(),
        turn_number: 1,
      });
      model.queue.push({ text: 'Solar panels.' });
      clock.advance(1000);
      const second = okBody(await send(id, 'Price?'));
      expect(second).toMatchObject({
        agent_message: 'Solar panels.',
        turn_number: 2,
        current_state: 'ongoing',
      });

      // The model saw the filled prompt and the whole conversation.
      const request = model.requests.at(-1)!;
      expect(request.messages[0]).toEqual({ role: 'system', content: 'You help Ann.' });
      expect(request.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual([
        'Hello Ann!',
        'What do you sell?',
        'echo What do you sell?',
        'Price?',
      ]);

      const chat = okBody(await get(id));
      const history = chat.conversation_history as Json[];
      expect(history.map((h) => [h.agent_id, h.message, h.turn_number, h.current_state])).toEqual([
        [agentId, 'Hello Ann!', 0, 'ongoing'],
        ['user', 'What do you sell?', 1, 'ongoing'],
        [agentId, 'echo What do you sell?', 1, 'ongoing'],
        ['user', 'Price?', 2, 'ongoing'],
        [agentId, 'Solar panels.', 2, 'ongoing'],
      ]);
      expect(history[4]?.timestamp).toBe(new Date(clock.now()).toISOString());
      for (const h of history) expect(h.timestamp).toMatch(ISO);
      expect(chat.transcript).toBe(
        'Agent: Hello Ann!\nUser: What do you sell?\nAgent: echo What do you sell?\nUser: Price?\nAgent: Solar panels.',
      );
      expect(chat.chat_status).toBe('ongoing');
    });

    it('400s for an empty, missing or oversized message', async () => {
      const id = await newChat();
      expectFieldError(await send(id, ''), ['body', 'message']);
      expectFieldError(await t.call({ method: 'POST', url: `/v2/chat/${id}/messages`, payload: {} }), [
        'body',
        'message',
      ]);
      expectFieldError(await send(id, 'x'.repeat(4001)), ['body', 'message']);
      expect(okBody(await send(id, 'x'.repeat(4000))).turn_number).toBe(1);
    });

    it('400s not_found for an unknown chat', async () => {
      expectNotFound(await send(MISSING_ID, 'hi'), 400);
    });

    it('completes the chat when the agent calls end_call, then refuses messages', async () => {
      const id = await newChat();
      model.queue.push({ toolCalls: [{ name: 'end_call', arguments: { reason: 'conversation complete' } }] });
      const res = okBody(await send(id, 'That is all, thanks'));
      expect(res).toMatchObject({ current_state: 'completed', turn_number: 1 });
      expect(typeof res.agent_message).toBe('string');
      expect((res.agent_message as string).length).toBeGreaterThan(0);
      const chat = okBody(await get(id));
      expect(chat.chat_status).toBe('completed');
      const history = chat.conversation_history as Json[];
      expect(history.at(-1)).toMatchObject({ agent_id: agentId, current_state: 'completed' });
      expect(history.at(-2)).toMatchObject({ agent_id: 'user', current_state: 'ongoing' });
      const d = expectErrorBody(await send(id, 'wait'), 400, 'conflict');
      expect(d.description).toContain('completed');
    });

    it('answers the fallback line when the model fails, and the chat goes on', async () => {
      const id = await newChat();
      model.queue.push({ error: new LLMError('down', 'llm_unavailable', true) });
      expect(okBody(await send(id, 'Anyone there?'))).toMatchObject({
        agent_message: FALLBACK_LLM_FAILURE,
        current_state: 'ongoing',
        turn_number: 1,
      });
      expect(okBody(await send(id, 'Now?'))).toMatchObject({ agent_message: 'echo Now?', turn_number: 2 });
      const chat = okBody(await get(id));
      expect(chat.transcript).toBe(
        `Agent: Hello Ann!\nUser: Anyone there?\nAgent: ${FALLBACK_LLM_FAILURE}\nUser: Now?\nAgent: echo Now?`,
      );
    });

    it('processes concurrent messages to one chat strictly one after another', async () => {
      const id = await newChat();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const firstEntered = new Promise<void>((resolve) => (entered = resolve));
      let calls = 0;
      model.state.beforeCall = async () => {
        calls += 1;
        if (calls === 1) {
          entered();
          await released;
        }
      };
      const first = send(id, 'one');
      await firstEntered;
      const rest = [send(id, 'two'), send(id, 'three')];
      // Let the other requests reach their handlers while the first turn is still running.
      for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
      release();
      const responses = (await Promise.all([first, ...rest])).map(okBody);
      expect(model.state.maxInFlight).toBe(1);
      expect(responses[0]).toMatchObject({ agent_message: 'echo one', turn_number: 1 });
      expect(responses.map((r) => r.turn_number).sort()).toEqual([1, 2, 3]);
      const history = okBody(await get(id)).conversation_history as Json[];
      for (const r of responses) {
        const said = (r.agent_message as string).replace('echo ', '');
        const user = history.find((h) => h.agent_id === 'user' && h.message === said);
        expect(user?.turn_number).toBe(r.turn_number);
      }
      expect(history).toHaveLength(7);
    });

    it('retries a turn once when another writer moved the chat, then 400s conflict', async () => {
      const id = await newChat();
      const bump = async () => {
        const chat = await t.store.chats.get(t.ws.id, id);
        expect(
          await t.store.chats.saveState(t.ws.id, id, chat!.version, {
            status: 'ongoing',
            state: chat!.state,
          }),
        ).toBe(true);
      };
      let calls = 0;
      model.state.beforeCall = async () => {
        calls += 1;
        if (calls === 1) await bump();
      };
      expect(okBody(await send(id, 'first'))).toMatchObject({ agent_message: 'echo first', turn_number: 1 });
      expect(calls).toBe(2);
      const history = okBody(await get(id)).conversation_history as Json[];
      expect(history.filter((h) => h.agent_id === 'user')).toHaveLength(1);

      model.state.beforeCall = bump;
      const d = expectErrorBody(await send(id, 'second'), 400, 'conflict');
      expect(d.description).toContain(id);
      expect((okBody(await get(id)).conversation_history as Json[]).length).toBe(history.length);
    });
  });

  describe('list', () => {
    it('pages newest first by cursor, filtered by agent_id, scoped to the workspace', async () => {
      const listAgent = await createAgent({ agent: { prompt: 'p', greeting_message: 'Hi' } });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await newChat({}, listAgent));
      const otherAgent = await createAgent({ agent: { greeting_message: 'Hi' } }, t.other.key);
      await create(randomUUID(), { model_id: otherAgent }, t.other.key);
      const newest = [...ids].reverse();

      const list = (query: string, key?: string) => t.call({ method: 'GET', url: `/v2/chat?${query}`, key });
      const page1 = okBody(await list(`agent_id=${listAgent}&limit=2`));
      expect(Object.keys(page1).sort()).toEqual(['chats', 'has_more', 'next_cursor']);
      expect((page1.chats as Json[]).map((c) => c.chat_id)).toEqual(newest.slice(0, 2));
      expect(page1.has_more).toBe(true);
      expect(typeof page1.next_cursor).toBe('string');
      const page2 = okBody(await list(`agent_id=${listAgent}&limit=2&cursor=${page1.next_cursor as string}`));
      expect((page2.chats as Json[]).map((c) => c.chat_id)).toEqual(newest.slice(2, 4));
      const page3 = okBody(await list(`agent_id=${listAgent}&limit=2&cursor=${page2.next_cursor as string}`));
      expect((page3.chats as Json[]).map((c) => c.chat_id)).toEqual(newest.slice(4));
      expect(page3).toMatchObject({ has_more: false, next_cursor: '' });
      // An empty cursor (the last page's, passed back) is the first page.
      const again = okBody(await list(`agent_id=${listAgent}&limit=2&cursor=`));
      expect((again.chats as Json[]).map((c) => c.chat_id)).toEqual(newest.slice(0, 2));
      expect((page3.chats as Json[])[0]).toMatchObject({ model_id: listAgent, transcript: 'Agent: Hi' });

      // Default limit 10, every chat of the workspace and none of the other's.
      const all = okBody(await list(''));
      expect((all.chats as Json[]).length).toBe(10);
      expect((all.chats as Json[]).slice(0, 5).map((c) => c.chat_id)).toEqual(newest);
      const theirs = okBody(await list('', t.other.key));
      expect((theirs.chats as Json[]).every((c) => c.model_id === otherAgent)).toBe(true);
      expect(okBody(await list(`agent_id=${otherAgent}`)).chats).toEqual([]);
    });

    it('400s for a bad limit or cursor', async () => {
      const list = (query: string) => t.call({ method: 'GET', url: `/v2/chat?${query}` });
      expectFieldError(await list('limit=0'), ['query', 'limit']);
      expectFieldError(await list('limit=101'), ['query', 'limit']);
      expectFieldError(await list('limit=ten'), ['query', 'limit']);
      expectFieldError(await list('cursor=garbage!'), ['query', 'cursor']);
      expectFieldError(await list(`cursor=${Buffer.from('seq:abc').toString('base64url')}`), [
        'query',
        'cursor',
      ]);
      expect(okBody(await list('limit=100')).chats).toBeInstanceOf(Array);
    });
  });

  describe('without a key (public widget use)', () => {
    it("creates a chat in the agent's workspace and takes messages", async () => {
      const otherAgent = await createAgent({ agent: { greeting_message: 'Welcome' } }, t.other.key);
      const id = randomUUID();
      const chat = okBody(await create(id, { model_id: otherAgent }, null));
      expect(chat.initial_message).toMatchObject({ agent_message: 'Welcome' });
      expect(okBody(await send(id, 'hi', null))).toMatchObject({ agent_message: 'echo hi', turn_number: 1 });
      // The chat belongs to the agent's workspace.
      expect(okBody(await get(id, t.other.key)).transcript).toBe('Agent: Welcome\nUser: hi\nAgent: echo hi');
      expectNotFound(await get(id), 400);
      expectNotFound(await create(randomUUID(), { model_id: MISSING_ID }, null), 400);
      expectNotFound(await send(MISSING_ID, 'hi', null), 400);
    });

    it('401s on the other chat routes and for a present but invalid key', async () => {
      const id = await newChat();
      for (const res of [
        await t.call({ method: 'GET', url: `/v2/chat/${id}`, key: null }),
        await t.call({ method: 'GET', url: '/v2/chat', key: null }),
        await t.call({ method: 'DELETE', url: `/v2/chat/${id}`, key: null }),
        await create(randomUUID(), { model_id: agentId }, 'pk_not-a-real-key'),
        await send(id, 'hi', 'pk_not-a-real-key'),
        await t.call({
          method: 'POST',
          url: `/v2/chat/${id}/messages`,
          payload: { message: 'hi' },
          key: null,
          headers: { authorization: '' },
        }),
      ]) {
        expectErrorBody(res, 401, 'auth');
      }
      expect(okBody(await get(id)).conversation_history).toHaveLength(1);
    });

    it('reaches only chats opened keylessly: never a chat opened with a key', async () => {
      const keyed = await newChat();
      const before = okBody(await get(keyed)).conversation_history as Json[];
      expectNotFound(await send(keyed, 'injected', null), 400);
      // Indistinguishable from a chat that does not exist, and nothing was stored.
      expect(okBody(await get(keyed)).conversation_history).toEqual(before);
      // Another workspace's keyed chat likewise.
      const otherAgent = await createAgent({ agent: { greeting_message: 'Hi' } }, t.other.key);
      const otherChat = randomUUID();
      okBody(await create(otherChat, { model_id: otherAgent }, t.other.key));
      expectNotFound(await send(otherChat, 'injected', null), 400);
      expect(okBody(await get(otherChat, t.other.key)).conversation_history).toHaveLength(1);
      // With the key, the keyed chat takes messages as before.
      expect(okBody(await send(keyed, 'hi')).turn_number).toBe(1);
    });

    it('opens chats keylessly only with agents that allow it (agent.allow_public_chat)', async () => {
      const outbound = await createAgent({ type: 'outbound' });
      const inbound = await createAgent({ type: 'inbound' });
      const widget = await createAgent({ type: 'widget' });
      const closed = await createAgent({ agent: { prompt: 'x', allow_public_chat: false } });
      const opened = await createAgent({ type: 'outbound', agent: { prompt: 'x', allow_public_chat: true } });
      for (const model of [outbound, inbound, closed]) {
        const res = await create(randomUUID(), { model_id: model }, null);
        expect(expectErrorBody(res, 401, 'auth').description).toContain('allow_public_chat');
      }
      for (const model of [widget, opened]) okBody(await create(randomUUID(), { model_id: model }, null));
      // With a key, every agent takes chats.
      okBody(await create(randomUUID(), { model_id: outbound }));
      expectFieldError(
        await t.call({
          method: 'POST',
          url: '/v2/assistants',
          payload: agentBody({ agent: { prompt: 'x', allow_public_chat: 'yes' } }),
        }),
        ['body', 'agent', 'allow_public_chat'],
      );
    });

    it('a keyless chat stops taking keyless messages when its agent stops allowing them', async () => {
      const agent = await createAgent({ type: 'widget' });
      const id = randomUUID();
      okBody(await create(id, { model_id: agent }, null));
      okBody(await send(id, 'one', null));
      const put = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${agent}`,
        payload: { agent: { allow_public_chat: false } },
      });
      expect(put.statusCode, put.body).toBe(200);
      expectNotFound(await send(id, 'two', null), 400);
      // The workspace's key still reaches it.
      expect(okBody(await send(id, 'two')).turn_number).toBe(2);
    });
  });
});

forEachStore('chats API rate limit', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let agentId: string;

  beforeAll(async () => {
    clock = createManualClock(START);
    t = await createTestApi(target, {
      clock,
      llm: createScriptedLLM([{ text: 'OK.' }], { repeatLast: true }),
      publicRateLimit: { requests: 3, windowMs: 60_000 },
    });
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody({ type: 'chat' }) });
    agentId = res.json().response.model_id as string;
  });
  afterAll(() => t.close());

  const publicCreate = (remoteAddress = '10.0.0.1') =>
    t.call({
      method: 'POST',
      url: `/v2/chat/${randomUUID()}`,
      payload: { model_id: agentId },
      key: null,
      remoteAddress,
    });

  it('429s keyless requests over the limit per address, with Retry-After, until refilled', async () => {
    for (let i = 0; i < 3; i++) expect((await publicCreate()).statusCode).toBe(200);
    const limited = await publicCreate();
    const d = expectErrorBody(limited, 429, 'rate_limit');
    expect(d.errors).toBeUndefined();
    expect(limited.headers['retry-after']).toBe('20');
    // Another address and keyed requests are not limited.
    expect((await publicCreate('10.0.0.2')).statusCode).toBe(200);
    const keyed = await t.call({
      method: 'POST',
      url: `/v2/chat/${randomUUID()}`,
      payload: { model_id: agentId },
    });
    expect(keyed.statusCode).toBe(200);
    // Messages share the address's bucket (the chat is opened keylessly from another address).
    const id = randomUUID();
    expect(
      (
        await t.call({
          method: 'POST',
          url: `/v2/chat/${id}`,
          payload: { model_id: agentId },
          key: null,
          remoteAddress: '10.0.0.3',
        })
      ).statusCode,
    ).toBe(200);
    const message = () =>
      t.call({
        method: 'POST',
        url: `/v2/chat/${id}/messages`,
        payload: { message: 'hi' },
        key: null,
        remoteAddress: '10.0.0.1',
      });
    expectErrorBody(await message(), 429, 'rate_limit');

    clock.advance(19_999);
    expectErrorBody(await publicCreate(), 429, 'rate_limit');
    clock.advance(1);
    expect((await message()).statusCode).toBe(200);
    expectErrorBody(await publicCreate(), 429, 'rate_limit');
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect((await publicCreate()).statusCode).toBe(200);
    expectErrorBody(await publicCreate(), 429, 'rate_limit');
  });
});

forEachStore('chats API rate limit behind a proxy', (target) => {
  for (const trustProxy of [true, false]) {
    it(`${trustProxy ? 'takes' : 'ignores'} the client address from X-Forwarded-For when trustProxy is ${trustProxy}`, async () => {
      const t = await createTestApi(target, {
        llm: createScriptedLLM([{ text: 'OK.' }], { repeatLast: true }),
        publicRateLimit: { requests: 1, windowMs: 60_000 },
        trustProxy,
      });
      try {
        const created = await t.call({
          method: 'POST',
          url: '/v2/assistants',
          payload: agentBody({ type: 'chat' }),
        });
        const agentId = created.json().response.model_id as string;
        const from = (client: string) =>
          t.call({
            method: 'POST',
            url: `/v2/chat/${randomUUID()}`,
            payload: { model_id: agentId },
            key: null,
            remoteAddress: '10.9.9.9',
            headers: { 'x-forwarded-for': client },
          });
        expect((await from('203.0.113.1')).statusCode).toBe(200);
        expect((await from('203.0.113.2')).statusCode).toBe(trustProxy ? 200 : 429);
        expect((await from('203.0.113.1')).statusCode).toBe(429);
      } finally {
        await t.close();
      }
    });
  }
});
