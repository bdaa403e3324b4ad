import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createScriptedLLM, type ScriptedReply } from '../../src/providers/testing/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Chats run their agent's attached actions (INFORMATION_EXTRACTOR and CUSTOM_ACTION) as tools;
// the run records and collected variables live in the chat's state and show on the chat record.

interface Timeline {
  name: string;
  action_type: string;
  attempt: number;
  status: string;
  failed_reason: string | null;
}

interface ChatView {
  chat_status: string;
  initial_message: { agent_message: string } | null;
  executed_actions: Record<
    string,
    {
      error_message: string | null;
      return_value: Record<string, unknown>;
      action_id: string;
      run_action_before_call_start: boolean;
    }
  >;
  action_execution_timeline: Timeline[];
  collected_variables: Record<string, { value: unknown; collected: boolean }> | null;
}

let server: http.Server;
let base = '';
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '';
    hits.push(url);
    res.setHeader('content-type', 'application/json');
    if (url.startsWith('/fail')) {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: 'boom' }));
    } else if (url.startsWith('/slow')) {
      setTimeout(() => res.end('{}'), 2500).unref();
    } else if (url.startsWith('/profile')) {
      res.end(JSON.stringify({ first_name: 'Ann', tier: 'gold', path: url }));
    } else {
      res.end(JSON.stringify({ status: 'shipped', path: url }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

forEachStore('chat actions', (target) => {
  let t: TestApi;
  const queue: ScriptedReply[] = [];
  const llm = createScriptedLLM([() => queue.shift() ?? { text: 'OK.' }], { repeatLast: true });

  beforeAll(async () => {
    t = await createTestApi(target, { allowPrivateNetwork: true, llm });
  });
  afterAll(() => t.close());
  beforeEach(() => {
    queue.length = 0;
    hits.length = 0;
  });

  async function newAgent(agent: Record<string, unknown>, key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody({ agent }), key });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: { model_id: string } }).response.model_id;
  }

  async function newAction(payload: Record<string, unknown>, key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/actions', payload, key });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { response: { id?: string; action_id?: string } };
    const id = body.response.id ?? body.response.action_id;
    expect(id).toBeTypeOf('string');
    return id as string;
  }

  async function attach(modelId: string, actions: string[]) {
    const res = await t.call({
      method: 'POST',
      url: '/v2/actions/attach',
      payload: { model_id: modelId, actions },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  async function createChat(modelId: string, metadata: Record<string, unknown> = {}) {
    const id = randomUUID();
    const res = await t.call({
      method: 'POST',
      url: `/v2/chat/${id}`,
      payload: { model_id: modelId, metadata },
    });
    expect(res.statusCode, res.body).toBe(200);
    return { id, created: (res.json() as { response: ChatView }).response };
  }

  async function send(id: string, message: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: `/v2/chat/${id}/messages`, payload: { message } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: { agent_message: string } }).response.agent_message;
  }

  async function read(id: string): Promise<ChatView> {
    const res = await t.call({ method: 'GET', url: `/v2/chat/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: ChatView }).response;
  }

  const brief = (timeline: Timeline[]) => timeline.map((e) => [e.name, e.attempt, e.status]);

  it('a chat without actions shows empty records and null collected_variables', async () => {
    const agent = await newAgent({ prompt: 'p', greeting_message: 'Hi' });
    const { id, created } = await createChat(agent);
    expect(created.executed_actions).toEqual({});
    expect(created.action_execution_timeline).toEqual([]);
    expect(created.collected_variables).toBeNull();
    expect(await send(id, 'hello')).toBe('OK.');
    expect((await read(id)).collected_variables).toBeNull();
  });

  it('collects an extractor value; a bad value then a retry in the next message is attempt 2', async () => {
    const agent = await newAgent({ prompt: 'Ask for the email.', greeting_message: 'Hi' });
    const action = await newAction({
      INFORMATION_EXTRACTOR: { identifier: 'email', description: 'The email address', kind: 'open_question' },
    });
    await attach(agent, [action]);
    const { id } = await createChat(agent);

    queue.push(
      { toolCalls: [{ name: 'extract_email', arguments: { value: '  ' } }] },
      { text: 'Say again?' },
    );
    expect(await send(id, 'my email is ... hm')).toBe('Say again?');
    let chat = await read(id);
    expect(brief(chat.action_execution_timeline)).toEqual([['extract_email', 1, 'failed']]);
    expect(chat.action_execution_timeline[0]?.failed_reason).toMatch(/must not be empty/);
    expect(chat.collected_variables).toBeNull();

    queue.push(
      { toolCalls: [{ name: 'extract_email', arguments: { value: 'ann@example.com' } }] },
      { text: 'Thanks!' },
    );
    expect(await send(id, 'ann@example.com')).toBe('Thanks!');
    chat = await read(id);
    expect(brief(chat.action_execution_timeline)).toEqual([
      ['extract_email', 1, 'failed'],
      ['extract_email', 2, 'success'],
    ]);
    expect(chat.action_execution_timeline[1]?.action_type).toBe('extract_info_action_type');
    expect(chat.collected_variables).toEqual({ email: { value: 'ann@example.com', collected: true } });
    expect(Object.keys(chat.executed_actions)).toEqual(['extract_email']);
    expect(chat.executed_actions.extract_email).toMatchObject({
      error_message: null,
      return_value: { email: 'ann@example.com' },
      action_id: action,
    });
  });

  it('a live transfer in a chat fails as unsupported, says failed_msg, and the chat goes on', async () => {
    const agent = await newAgent({ prompt: 'Transfer to sales when asked.', greeting_message: 'Hi' });
    const action = await newAction({
      LIVE_TRANSFER: {
        name: 'Vertrieb – Zentrale 📞',
        phone: '+14155550123',
        transfer_mode: 'warm_transfer',
        failed_msg: 'I cannot transfer you from this chat.',
      },
    });
    await attach(agent, [action]);
    const { id } = await createChat(agent);
    queue.push(
      { toolCalls: [{ name: 'Vertrieb_Zentrale', arguments: {} }] },
      { text: 'Can I help otherwise?' },
    );
    const reply = await send(id, 'Put me through to sales');
    expect(reply).toContain('I cannot transfer you from this chat.');
    const chat = await read(id);
    expect(chat.chat_status).toBe('ongoing');
    expect(brief(chat.action_execution_timeline)).toEqual([['Vertrieb – Zentrale 📞', 1, 'failed']]);
    expect(chat.action_execution_timeline[0]).toMatchObject({
      action_type: 'transfer_call_action_type',
      failed_reason: 'transfer_method_unsupported',
    });
    expect(Object.keys(chat.executed_actions)).toEqual(['Vertrieb – Zentrale 📞']);
  });

  it('runs custom actions: success, a 500 and a timeout are recorded and the chat goes on', async () => {
    const agent = await newAgent({ prompt: 'Look orders up.', greeting_message: 'Hi' });
    const custom = (name: string, path: string) => ({
      CUSTOM_ACTION: {
        name,
        description: `Runs ${name}`,
        http_mode: 'GET',
        url: `${base}/${path}/{order_id}`,
        variables_during_the_call: [{ name: 'order_id', description: 'The order', type: 'string' }],
        failure_timeout: 1,
      },
    });
    const ids = [
      await newAction(custom('order_status', 'orders')),
      await newAction(custom('order_fail', 'fail')),
      await newAction(custom('order_slow', 'slow')),
    ];
    await attach(agent, ids);
    const { id } = await createChat(agent);

    queue.push(
      { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A42' } }] },
      { text: 'Shipped.' },
    );
    expect(await send(id, 'where is A42?')).toBe('Shipped.');
    queue.push({ toolCalls: [{ name: 'order_fail', arguments: { order_id: 'A42' } }] }, { text: 'Trouble.' });
    expect(await send(id, 'cancel A42')).toBe('Trouble.');
    queue.push({ toolCalls: [{ name: 'order_slow', arguments: { order_id: 'A42' } }] }, { text: 'Slow.' });
    expect(await send(id, 'refund A42')).toBe('Slow.');
    expect(await send(id, 'still there?')).toBe('OK.');

    const chat = await read(id);
    expect(chat.chat_status).toBe('ongoing');
    expect(brief(chat.action_execution_timeline)).toEqual([
      ['order_status', 1, 'success'],
      ['order_fail', 1, 'failed'],
      ['order_slow', 1, 'failed'],
    ]);
    expect(chat.action_execution_timeline[1]?.failed_reason).toBe('the server answered 500');
    expect(chat.action_execution_timeline[2]?.failed_reason).toBe('no answer within 1 seconds');
    expect(chat.executed_actions.order_status?.return_value).toEqual({
      status: 200,
      data: { status: 'shipped', path: '/orders/A42' },
    });
    expect(chat.executed_actions.order_fail?.error_message).toBe('the server answered 500');
    expect(hits).toContain('/orders/A42');
  }, 15_000);

  it('says speech_while_using_the_tool before the action runs, then the answer', async () => {
    const agent = await newAgent({ prompt: 'Look orders up.', greeting_message: 'Hi' });
    const action = await newAction({
      CUSTOM_ACTION: {
        name: 'lookup',
        http_mode: 'GET',
        url: `${base}/orders/{order_id}`,
        variables_during_the_call: [{ name: 'order_id', description: 'The order' }],
        speech_while_using_the_tool: 'One moment while I check.',
      },
    });
    await attach(agent, [action]);
    const { id } = await createChat(agent);
    queue.push({ toolCalls: [{ name: 'lookup', arguments: { order_id: 'B7' } }] }, { text: 'It shipped.' });
    expect(await send(id, 'where is B7?')).toBe('One moment while I check. It shipped.');
    expect((await read(id)).executed_actions.lookup).toMatchObject({
      message_before_action: 'One moment while I check.',
    });
  });

  it('runs a pre-call custom action once at creation; its result fills the greeting', async () => {
    const agent = await newAgent({
      prompt: 'You help {first_name}.',
      greeting_message: 'Hello {first_name} ({tier})!',
    });
    const action = await newAction({
      CUSTOM_ACTION: {
        name: 'crm_lookup',
        http_mode: 'GET',
        url: `${base}/profile/{customer_id}`,
        variables_during_the_call: [{ name: 'customer_id', type: 'string' }],
        run_action_before_call_start: true,
      },
    });
    await attach(agent, [action]);
    const { id, created } = await createChat(agent, { customer_id: 'c7' });
    expect(created.initial_message?.agent_message).toBe('Hello Ann (gold)!');
    expect(hits).toEqual(['/profile/c7']);
    expect(created.executed_actions.crm_lookup).toMatchObject({
      run_action_before_call_start: true,
      error_message: null,
    });

    await send(id, 'hi');
    await send(id, 'again');
    expect(hits).toEqual(['/profile/c7']);
    const chat = await read(id);
    expect(brief(chat.action_execution_timeline)).toEqual([['crm_lookup', 1, 'success']]);
  });

  it("never runs another workspace's actions", async () => {
    const agent = await newAgent({ prompt: 'p', greeting_message: 'Hi' });
    const foreign = await newAction(
      {
        CUSTOM_ACTION: {
          name: 'foreign_precall',
          http_mode: 'GET',
          url: `${base}/profile/foreign`,
          run_action_before_call_start: true,
        },
      },
      t.other.key,
    );
    const foreignTool = await newAction(
      { INFORMATION_EXTRACTOR: { identifier: 'secret', description: 'x', kind: 'open_question' } },
      t.other.key,
    );
    // The API refuses the attachment...
    const refused = await t.call({
      method: 'POST',
      url: '/v2/actions/attach',
      payload: { model_id: agent, actions: [foreign, foreignTool] },
    });
    expect([400, 404]).toContain(refused.statusCode);
    // ...and a row written past it (the store trusts its caller) is still not used.
    await t.store.actions.attach(t.ws.id, agent, [foreign, foreignTool]);

    const { id, created } = await createChat(agent);
    expect(created.initial_message?.agent_message).toBe('Hi');
    queue.push({ toolCalls: [{ name: 'extract_secret', arguments: { value: 'x' } }] }, { text: 'Done.' });
    await send(id, 'hello');
    const chat = await read(id);
    expect(hits).toEqual([]);
    expect(chat.executed_actions).toEqual({});
    expect(chat.action_execution_timeline).toEqual([]);
    expect(chat.collected_variables).toBeNull();
  });

  it('loads a chat stored before actions ran in chats', async () => {
    const agent = await newAgent({ prompt: 'p', greeting_message: 'Hi' });
    const action = await newAction({
      INFORMATION_EXTRACTOR: { identifier: 'city', description: 'The city', kind: 'open_question' },
    });
    await attach(agent, [action]);
    const id = randomUUID();
    const old = await t.store.chats.create(t.ws.id, {
      id,
      agentId: agent,
      channel: 'api',
      metadata: {},
      state: {
        history: [],
        turns: [],
        modelCalls: [],
        toolCalls: [],
        userTurns: 0,
        started: true,
        ended: null,
      },
      status: 'ongoing',
    });
    expect(old).not.toBeNull();
    expect((await read(id)).executed_actions).toEqual({});
    queue.push({ toolCalls: [{ name: 'extract_city', arguments: { value: 'Oslo' } }] }, { text: 'Nice.' });
    expect(await send(id, 'I live in Oslo')).toBe('Nice.');
    const chat = await read(id);
    expect(chat.collected_variables).toEqual({ city: { value: 'Oslo', collected: true } });
    expect(brief(chat.action_execution_timeline)).toEqual([['extract_city', 1, 'success']]);
  });

  it('honours attachment items: before, hardcoded and llm mappings, the trigger condition', async () => {
    const agent = await newAgent({
      prompt: 'You help {first_name}.',
      greeting_message: 'Hello {first_name}!',
    });
    const lookup = await newAction({
      CUSTOM_ACTION: {
        name: 'crm_lookup',
        http_mode: 'GET',
        url: `${base}/profile/{customer_id}`,
        variables_during_the_call: [{ name: 'customer_id', type: 'string' }],
      },
    });
    const track = await newAction({
      CUSTOM_ACTION: {
        name: 'track',
        description: 'Tracks an order',
        http_mode: 'GET',
        url: `${base}/orders/{store}/{order_id}`,
        variables_during_the_call: [
          { name: 'order_id', description: 'The order', type: 'string' },
          { name: 'store', description: 'The store', type: 'string' },
        ],
      },
    });
    const res = await t.call({
      method: 'POST',
      url: '/v2/actions/attach',
      payload: {
        model_id: agent,
        items: [
          {
            action_id: lookup,
            attachment_type: 'before',
            input_variables_mapping: [
              { variable_name: 'customer_id', source: 'hardcoded', hardcoded_value: 'c9' },
            ],
          },
          {
            action_id: track,
            trigger_condition: 'When the caller asks where the parcel is',
            input_variables_mapping: [
              { variable_name: 'store', source: 'hardcoded', hardcoded_value: 'bergen' },
              { variable_name: 'order_id', source: 'llm', llm_config: { description: 'The parcel number' } },
            ],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    // `before`: runs once at creation with its hardcoded value; its result fills the greeting.
    const { id, created } = await createChat(agent);
    expect(created.initial_message?.agent_message).toBe('Hello Ann!');
    expect(hits).toEqual(['/profile/c9']);
    expect(created.executed_actions.crm_lookup).toMatchObject({ run_action_before_call_start: true });

    queue.push({ toolCalls: [{ name: 'track', arguments: { order_id: 'A1' } }] }, { text: 'On its way.' });
    expect(await send(id, 'where is my parcel?')).toBe('On its way.');
    expect(hits).toEqual(['/profile/c9', '/orders/bergen/A1']);
    // The model is offered `track` (not the pre-call lookup), described by the trigger condition
    // and asked only for the variable the mapping leaves to it.
    const tools = llm.requests.at(-1)?.tools ?? [];
    expect(tools.map((tool) => tool.name)).not.toContain('crm_lookup');
    const offered = tools.find((tool) => tool.name === 'track');
    expect(offered?.description).toBe('When the caller asks where the parcel is');
    expect(offered?.parameters).toMatchObject({
      properties: { order_id: { type: 'string', description: 'The parcel number' } },
      required: ['order_id'],
    });
  });

  it('initializes a custom action: one request with the given variables, its answer as text', async () => {
    const action = await newAction({
      CUSTOM_ACTION: {
        name: 'crm_lookup',
        http_mode: 'GET',
        url: `${base}/profile/{customer_id}`,
        query_parameters: [{ key: 'units', value: '<units>' }],
        variables_during_the_call: [{ name: 'customer_id', type: 'string' }],
      },
    });
    const init = (payload: Record<string, unknown>) =>
      t.call({ method: 'POST', url: '/v2/actions/initialize', payload });
    const answered = async (payload: Record<string, unknown>) => {
      const r = await init(payload);
      expect(r.statusCode, r.body).toBe(200);
      return (
        r.json() as { response: { answer: string; ok: boolean; status: number | null; error: string | null } }
      ).response;
    };
    const items = await answered({
      action_id: action,
      variables: [
        { key: 'customer_id', value: 'c5' },
        { key: 'units', value: 'metric' },
      ],
    });
    expect(items).toEqual({ answer: expect.any(String), ok: true, status: 200, error: null });
    expect(JSON.parse(items.answer)).toEqual({
      first_name: 'Ann',
      tier: 'gold',
      path: '/profile/c5?units=metric',
    });
    // The object form is read by the same rule.
    expect((await answered({ action_id: action, variables: { customer_id: 'c6' } })).ok).toBe(true);
    expect(hits).toEqual(['/profile/c5?units=metric', '/profile/c6?units=%3Cunits%3E']);
    // A variable the action needs and is not given: no request, the reason as the answer.
    const missing = await answered({ action_id: action });
    expect(missing).toEqual({
      answer: 'the argument "customer_id" is missing',
      ok: false,
      status: null,
      error: 'the argument "customer_id" is missing',
    });
    // A failing server: its status and the reason.
    const failing = await newAction({
      CUSTOM_ACTION: { name: 'failing', http_mode: 'POST', url: `${base}/fail`, json_body_stringified: '{}' },
    });
    expect(await answered({ action_id: failing, variables: [] })).toEqual({
      answer: 'the server answered 500',
      ok: false,
      status: 500,
      error: 'the server answered 500',
    });
    expect(hits).toHaveLength(3);
    // Initializing records no run anywhere and attaches nothing.
    const read = await t.call({ method: 'GET', url: `/v2/actions/${action}?include_assistants=true` });
    expect((read.json() as { response: { assistants: string[] } }).response.assistants).toEqual([]);
  });
});
