import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FALLBACK_LLM_FAILURE, WHATSAPP_WINDOW_MS } from '../../src/api/index.ts';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import {
  LLMError,
  createSimMessaging,
  createTwilioInboundParser,
  createTwilioMessaging,
  type ChatRequest,
  type SimMessaging,
} from '../../src/providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../../src/providers/testing/index.ts';
import {
  TEST_PUBLIC_URL,
  agentBody,
  createTestApi,
  createWorkspace,
  forEachStore,
  type TestApi,
} from '../helpers.ts';
import { UUID, expectErrorBody, expectFieldError, expectNotFound, type Json } from '../assertions.ts';
import {
  signedInboundWebhook,
  startFakeTwilio,
  twilioError,
  type FakeTwilio,
} from '../twilio-server/index.ts';

// Outbound SMS/WhatsApp chats and the replies that continue them (WIRE.md section 6), end to end
// over a real store, once per dialect: through the sim carrier and through a local fake Twilio.

const START = Date.UTC(2026, 4, 1, 12);
const SIM_NUMBER = '+14155550100';
const TWILIO_NUMBER = '+14155550101';
/** In the inventory, not attached to the agent. */
const LOOSE_NUMBER = '+14155550102';
const INBOUND_PATH = '/v2/messaging/twilio/inbound';

function lastUser(request: ChatRequest): string {
  return request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
}

forEachStore('outbound chats', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let sim: SimMessaging;
  let twilio: FakeTwilio;
  const queue: ScriptedReply[] = [];
  let requests: ChatRequest[];
  let agentId: string;
  let bareAgentId: string;
  let nextUser = 300;

  /** A fresh person to write to, so that tests share no pair. */
  const user = () => `+1415555${String(nextUser++).padStart(4, '0')}`;

  beforeAll(async () => {
    clock = createManualClock(START);
    sim = createSimMessaging({ clock });
    twilio = await startFakeTwilio();
    const scripted = createScriptedLLM(
      [(request) => queue.shift() ?? { text: `echo ${lastUser(request)}` }],
      { clock, repeatLast: true },
    );
    requests = scripted.requests;
    t = await createTestApi(target, {
      clock,
      llm: scripted,
      messaging: {
        sim,
        twilio: {
          messaging: createTwilioMessaging({
            accountSid: twilio.accountSid,
            authToken: twilio.authToken,
            baseUrl: twilio.url,
          }),
          inbound: createTwilioInboundParser({ authToken: twilio.authToken }),
        },
      },
    });
    agentId = await createAgent({ agent: { prompt: 'You help {name}.', greeting_message: 'Hello {name}!' } });
    bareAgentId = await createAgent({ agent: { prompt: 'No greeting.' } });
    await importNumber(SIM_NUMBER, 'sim');
    await importNumber(TWILIO_NUMBER, 'twilio');
    await importNumber(LOOSE_NUMBER, 'sim');
    for (const agent of [agentId, bareAgentId]) {
      const res = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${agent}/phone_numbers`,
        payload: { phone_numbers: [SIM_NUMBER, TWILIO_NUMBER] },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
    await twilio.close();
  });
  beforeEach(() => {
    queue.length = 0;
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

  async function importNumber(phone: string, provider: string, key?: string, api = t): Promise<void> {
    const res = await api.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: phone, provider },
      key,
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  function okBody(res: LightMyRequestResponse): Json {
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { status: string; response: Json };
    expect(Object.keys(body)).toEqual(['status', 'response']);
    expect(body.status).toBe('ok');
    return body.response;
  }

  const outbound = (payload: Json, key?: string | null) =>
    t.call({ method: 'POST', url: '/v2/chat/outbound', payload, key });
  const getChat = (id: string, key?: string) => t.call({ method: 'GET', url: `/v2/chat/${id}`, key });
  const simInbound = (payload: Json, key?: string | null) =>
    t.call({ method: 'POST', url: '/v2/messaging/sim/inbound', payload, key });
  const simMessages = (query = '', key?: string) =>
    t.call({ method: 'GET', url: `/v2/messaging/sim/messages${query}`, key });

  async function start(payload: Json): Promise<string> {
    const res = okBody(await outbound(payload));
    expect(Object.keys(res)).toEqual(['conversation_id']);
    expect(res.conversation_id).toMatch(UUID);
    return res.conversation_id as string;
  }

  const smsPayload = (to: string, extra: Json = {}): Json => ({
    agent_id: agentId,
    channel: 'sms',
    to_number: to,
    from_number: SIM_NUMBER,
    custom_variables: { name: 'Ann' },
    ...extra,
  });

  async function chatCount(): Promise<number> {
    return ((okBody(await t.call({ method: 'GET', url: '/v2/chat?limit=100' })).chats as Json[]) ?? [])
      .length;
  }

  function postTwilioWebhook(webhook: { headers: Record<string, string>; form: Record<string, string> }) {
    return t.call({
      method: 'POST',
      url: INBOUND_PATH,
      key: null,
      headers: webhook.headers,
      payload: new URLSearchParams(webhook.form).toString(),
    });
  }

  describe('POST /v2/chat/outbound through the sim', () => {
    it('sends the greeting by SMS and records it as the first turn of an sms chat', async () => {
      const to = user();
      const id = await start(smsPayload(to));
      expect(sim.sent().at(-1)).toMatchObject({ channel: 'sms', from: SIM_NUMBER, to, body: 'Hello Ann!' });
      expect(sim.sent().at(-1)?.template).toBeUndefined();

      const chat = okBody(await getChat(id));
      expect(chat).toMatchObject({
        chat_id: id,
        model_id: agentId,
        chat_status: 'ongoing',
        channel: 'sms',
        metadata: { name: 'Ann' },
        initial_message: { agent_message: 'Hello Ann!', turn_number: 0, current_state: 'ongoing' },
        transcript: 'Agent: Hello Ann!',
      });
      expect(chat.conversation_history).toEqual([
        expect.objectContaining({ agent_id: agentId, message: 'Hello Ann!', turn_number: 0 }),
      ]);
    });

    it('sends a WhatsApp template, or initial_message with its placeholders filled', async () => {
      const to = user();
      const id = await start({
        ...smsPayload(to),
        channel: 'whatsapp',
        template: { content_sid: 'HX123', variables: { '1': 'Ann' } },
      });
      expect(sim.sent().at(-1)).toMatchObject({
        channel: 'whatsapp',
        from: SIM_NUMBER,
        to,
        template: { contentSid: 'HX123', variables: { '1': 'Ann' } },
      });
      const chat = okBody(await getChat(id));
      expect(chat).toMatchObject({
        channel: 'whatsapp',
        initial_message: { agent_message: '[template HX123]' },
      });

      const smsId = await start(smsPayload(user(), { initial_message: 'Hi {name}, your order shipped.' }));
      expect(sim.sent().at(-1)?.body).toBe('Hi Ann, your order shipped.');
      expect(okBody(await getChat(smsId)).initial_message).toMatchObject({
        agent_message: 'Hi Ann, your order shipped.',
      });
    });

    it('lists the workspace sim outbox newest first, with limit and offset', async () => {
      const first = user();
      const second = user();
      await start(smsPayload(first, { initial_message: 'one' }));
      await start(smsPayload(second, { initial_message: 'two' }));
      const page = okBody(await simMessages('?limit=2'));
      expect(page.pagination).toMatchObject({ limit: 2, offset: 0 });
      const total = (page.pagination as Json).total_records as number;
      expect(total).toBeGreaterThanOrEqual(2);
      expect(page.messages).toEqual([
        {
          message_id: expect.stringMatching(/^SM[0-9a-f]{32}$/),
          channel: 'sms',
          from: SIM_NUMBER,
          to: second,
          body: 'two',
          template: null,
          sent_at: new Date(clock.now()).toISOString(),
        },
        expect.objectContaining({ to: first, body: 'one' }),
      ]);
      const next = okBody(await simMessages('?limit=1&offset=1'));
      expect((next.messages as Json[])[0]).toMatchObject({ to: first, body: 'one' });
      expectFieldError(await simMessages('?limit=0'), ['query', 'limit']);
    });
  });

  describe('POST /v2/chat/outbound refusals', () => {
    it('refuses an unknown agent, or one of another workspace, as not_found', async () => {
      expectNotFound(await outbound({ ...smsPayload(user()), agent_id: 'nope' }), 400);
      const theirs = await createAgent({}, t.other.key);
      const d = expectNotFound(await outbound({ ...smsPayload(user()), agent_id: theirs }), 400);
      expect(d.description).toContain('agent_id');
    });

    it('refuses numbers that are not phone numbers, naming the field', async () => {
      expectFieldError(await outbound(smsPayload('12')), ['body', 'to_number']);
      expectFieldError(await outbound(smsPayload(user(), { from_number: 'abc' })), ['body', 'from_number']);
    });

    it('normalizes numbers to E.164', async () => {
      const to = user();
      await start(smsPayload(to.slice(1), { from_number: '1 (415) 555-0100', initial_message: 'norm' }));
      expect(sim.sent().at(-1)).toMatchObject({ from: SIM_NUMBER, to, body: 'norm' });
    });

    it('refuses a from_number not attached to the agent, or not in the inventory', async () => {
      const loose = expectFieldError(await outbound(smsPayload(user(), { from_number: LOOSE_NUMBER })), [
        'body',
        'from_number',
      ]);
      expect(loose.description).toContain('attached');
      expectFieldError(await outbound(smsPayload(user(), { from_number: '+14155550199' })), [
        'body',
        'from_number',
      ]);
    });

    it('refuses an unknown channel', async () => {
      expectFieldError(await outbound(smsPayload(user(), { channel: 'fax' })), ['body', 'channel']);
    });

    it('needs initial_message or template when the agent has no greeting', async () => {
      const before = sim.sent().length;
      expectFieldError(await outbound(smsPayload(user(), { agent_id: bareAgentId })), [
        'body',
        'initial_message',
      ]);
      expect(sim.sent()).toHaveLength(before);
      await start(smsPayload(user(), { agent_id: bareAgentId, initial_message: 'Hello' }));
      expect(sim.sent()).toHaveLength(before + 1);
    });

    it('needs a template for WhatsApp outside the 24-hour window', async () => {
      const before = sim.sent().length;
      const chats = await chatCount();
      const d = expectFieldError(await outbound({ ...smsPayload(user()), channel: 'whatsapp' }), [
        'body',
        'template',
      ]);
      expect(d.description).toContain('24-hour');
      expect(sim.sent()).toHaveLength(before);
      expect(await chatCount()).toBe(chats);
    });

    it('maps a refused send to a 400 and creates no chat', async () => {
      const before = sim.sent().length;
      const chats = await chatCount();
      const d = expectErrorBody(await outbound(smsPayload('+14155552222')), 400, 'validation');
      expect(d.description).toContain('cannot receive messages');
      expect(sim.sent()).toHaveLength(before);
      expect(await chatCount()).toBe(chats);
    });

    it('refuses a twilio number when Twilio is not configured', async () => {
      const bare = await createTestApi(target, { clock });
      try {
        const agent = (
          await bare.call({ method: 'POST', url: '/v2/assistants', payload: agentBody({ type: 'chat' }) })
        ).json().response.model_id as string;
        await importNumber(TWILIO_NUMBER, 'twilio', undefined, bare);
        const attach = await bare.call({
          method: 'PUT',
          url: `/v2/assistants/${agent}/phone_numbers`,
          payload: { phone_numbers: [TWILIO_NUMBER] },
        });
        expect(attach.statusCode, attach.body).toBe(200);
        const d = expectFieldError(
          await bare.call({
            method: 'POST',
            url: '/v2/chat/outbound',
            payload: {
              agent_id: agent,
              channel: 'sms',
              to_number: user(),
              from_number: TWILIO_NUMBER,
              initial_message: 'x',
            },
          }),
          ['body', 'from_number'],
        );
        expect(d.description).toContain('PARLEY_TWILIO_ACCOUNT_SID');
      } finally {
        await bare.close();
      }
    });

    it('needs an API key', async () => {
      expectErrorBody(await outbound(smsPayload(user()), null), 401, 'auth');
    });
  });

  describe('replies through the sim', () => {
    it('continues the chat, answers through the sim and shows the opening line to the model', async () => {
      const to = user();
      const id = await start(smsPayload(to));
      const res = okBody(
        await simInbound({ channel: 'sms', from: to, to: SIM_NUMBER, body: 'What can you do?' }),
      );
      expect(res).toEqual({ chat_id: id, agent_message: 'echo What can you do?' });
      expect(sim.sent().at(-1)).toMatchObject({
        channel: 'sms',
        from: SIM_NUMBER,
        to,
        body: 'echo What can you do?',
      });
      expect(requests.at(-1)?.messages).toContainEqual(
        expect.objectContaining({ role: 'assistant', content: 'Hello Ann!' }),
      );
      const chat = okBody(await getChat(id));
      expect(
        (chat.conversation_history as Json[]).map((e) => [e.agent_id, e.message, e.turn_number]),
      ).toEqual([
        [agentId, 'Hello Ann!', 0],
        ['user', 'What can you do?', 1],
        [agentId, 'echo What can you do?', 1],
      ]);
    });

    it('answers the fallback line when the model fails', async () => {
      const to = user();
      const id = await start(smsPayload(to));
      queue.push({ error: new LLMError('down', 'llm_unavailable', true) });
      const res = okBody(await simInbound({ channel: 'sms', from: to, to: SIM_NUMBER, body: 'hello?' }));
      expect(res).toEqual({ chat_id: id, agent_message: FALLBACK_LLM_FAILURE });
      expect(sim.sent().at(-1)).toMatchObject({ to, body: FALLBACK_LLM_FAILURE });
    });

    it('ignores a message with no ongoing chat on the pair', async () => {
      const before = sim.sent().length;
      expect(okBody(await simInbound({ channel: 'sms', from: user(), to: SIM_NUMBER, body: 'hi' }))).toEqual({
        chat_id: null,
        agent_message: null,
      });
      // Same pair, other channel: not the sms chat's.
      const to = user();
      await start(smsPayload(to));
      const count = sim.sent().length;
      expect(okBody(await simInbound({ channel: 'whatsapp', from: to, to: SIM_NUMBER, body: 'hi' }))).toEqual(
        {
          chat_id: null,
          agent_message: null,
        },
      );
      expect(sim.sent()).toHaveLength(count);
      expect(before).toBeLessThan(count);
    });

    it('completes the chat on end_call; later messages on the pair are ignored', async () => {
      const to = user();
      const id = await start(smsPayload(to));
      queue.push({ toolCalls: [{ name: 'end_call', arguments: { reason: 'conversation complete' } }] });
      const res = okBody(await simInbound({ channel: 'sms', from: to, to: SIM_NUMBER, body: 'Bye' }));
      expect(res.chat_id).toBe(id);
      const chat = okBody(await getChat(id));
      expect(chat.chat_status).toBe('completed');
      const turns = (chat.conversation_history as Json[]).length;

      const sent = sim.sent().length;
      expect(okBody(await simInbound({ channel: 'sms', from: to, to: SIM_NUMBER, body: 'Wait!' }))).toEqual({
        chat_id: null,
        agent_message: null,
      });
      expect(sim.sent()).toHaveLength(sent);
      const after = okBody(await getChat(id));
      expect(after.chat_status).toBe('completed');
      expect(after.conversation_history as Json[]).toHaveLength(turns);
    });

    it('validates the played message', async () => {
      expectFieldError(await simInbound({ channel: 'sms', from: 'x', to: SIM_NUMBER, body: 'hi' }), [
        'body',
        'from',
      ]);
      expectFieldError(await simInbound({ channel: 'mms', from: user(), to: SIM_NUMBER, body: 'hi' }), [
        'body',
        'channel',
      ]);
      expectErrorBody(
        await simInbound({ channel: 'sms', from: user(), to: SIM_NUMBER, body: 'hi' }, null),
        401,
        'auth',
      );
    });

    it('opens the WhatsApp window with a reply, and closes it 24 hours later', async () => {
      const to = user();
      const whatsapp = { ...smsPayload(to), channel: 'whatsapp' };
      await start({ ...whatsapp, template: { content_sid: 'HXopen' } });
      expectFieldError(await outbound({ ...whatsapp, initial_message: 'free text' }), ['body', 'template']);

      okBody(await simInbound({ channel: 'whatsapp', from: to, to: SIM_NUMBER, body: 'Yes please' }));
      clock.advance(WHATSAPP_WINDOW_MS - 1);
      await start({ ...whatsapp, initial_message: 'Following up' });
      expect(sim.sent().at(-1)).toMatchObject({ channel: 'whatsapp', to, body: 'Following up' });

      clock.advance(1);
      const before = sim.sent().length;
      expectFieldError(await outbound({ ...whatsapp, initial_message: 'Too late' }), ['body', 'template']);
      expect(sim.sent()).toHaveLength(before);
      await start({ ...whatsapp, template: { content_sid: 'HXagain' } });
      expect(sim.sent().at(-1)?.template).toEqual({ contentSid: 'HXagain' });
      // A reply on the other number does not open this pair's window.
      const other = user();
      okBody(await simInbound({ channel: 'whatsapp', from: other, to: SIM_NUMBER, body: 'hi' }));
      expectFieldError(await outbound({ ...whatsapp, initial_message: 'still closed' }), [
        'body',
        'template',
      ]);
    });
  });

  describe('tenant isolation', () => {
    it("keeps another workspace from seeing or playing this workspace's chats", async () => {
      const to = user();
      const id = await start(smsPayload(to, { initial_message: 'private' }));
      const other = t.other.key;
      expectNotFound(await getChat(id, other), 400);
      const theirs = okBody(await simMessages('', other));
      expect(theirs).toEqual({ pagination: { total_records: 0, limit: 20, offset: 0 }, messages: [] });
      const sent = sim.sent().length;
      expect(
        okBody(await simInbound({ channel: 'sms', from: to, to: SIM_NUMBER, body: 'hijack' }, other)),
      ).toEqual({
        chat_id: null,
        agent_message: null,
      });
      expect(sim.sent()).toHaveLength(sent);
      expect(okBody(await getChat(id)).conversation_history as Json[]).toHaveLength(1);

      // Their own agent cannot send from this workspace's number.
      const theirAgent = await createAgent({ agent: { greeting_message: 'Hi' } }, other);
      expectFieldError(await outbound({ ...smsPayload(user()), agent_id: theirAgent }, other), [
        'body',
        'from_number',
      ]);
      const third = await createWorkspace(t.store, 'third');
      expect(okBody(await simMessages('', third.key)).messages).toEqual([]);
    });
  });

  describe('Twilio', () => {
    const twilioPayload = (to: string, extra: Json = {}) =>
      smsPayload(to, { from_number: TWILIO_NUMBER, ...extra });

    it('sends an SMS through the Messages API with exactly To, From and Body', async () => {
      const to = user();
      const id = await start(twilioPayload(to));
      const request = twilio.requests.at(-1);
      expect(request).toMatchObject({
        method: 'POST',
        url: `/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`,
        auth: { username: twilio.accountSid, password: twilio.authToken },
      });
      expect(request?.form).toEqual({ To: to, From: TWILIO_NUMBER, Body: 'Hello Ann!' });
      expect(okBody(await getChat(id))).toMatchObject({
        channel: 'sms',
        initial_message: { agent_message: 'Hello Ann!' },
      });
    });

    it('sends a WhatsApp template with whatsapp: addresses', async () => {
      const to = user();
      await start(
        twilioPayload(to, {
          channel: 'whatsapp',
          template: { content_sid: 'HXabc', variables: { '1': 'Ann' } },
        }),
      );
      expect(twilio.requests.at(-1)?.form).toEqual({
        To: `whatsapp:${to}`,
        From: `whatsapp:${TWILIO_NUMBER}`,
        ContentSid: 'HXabc',
        ContentVariables: JSON.stringify({ '1': 'Ann' }),
      });
    });

    it("maps Twilio's refusal to 400 and its failure to 502, creating no chat", async () => {
      const chats = await chatCount();
      twilio.respondNext({ status: 400, body: twilioError(400, 21211, "The 'To' number is not valid.") });
      const d = expectErrorBody(await outbound(twilioPayload(user())), 400, 'validation');
      expect(d.description).toContain("The 'To' number is not valid.");
      twilio.respondNext({ status: 500 });
      expectErrorBody(await outbound(twilioPayload(user())), 502, 'critical');
      expect(await chatCount()).toBe(chats);
    });

    it('continues the chat from a signed inbound webhook and posts the reply to Twilio', async () => {
      const to = user();
      const id = await start(twilioPayload(to));
      const webhook = signedInboundWebhook({
        url: `${TEST_PUBLIC_URL}${INBOUND_PATH}`,
        from: to,
        to: TWILIO_NUMBER,
        body: 'Is it sunny?',
      });
      const before = twilio.requests.length;
      const res = await postTwilioWebhook(webhook);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/xml/);
      expect(res.body).toContain('<Response/>');
      expect(twilio.requests).toHaveLength(before + 1);
      expect(twilio.requests.at(-1)?.form).toEqual({
        To: to,
        From: TWILIO_NUMBER,
        Body: 'echo Is it sunny?',
      });
      const chat = okBody(await getChat(id));
      expect((chat.conversation_history as Json[]).map((e) => e.message)).toEqual([
        'Hello Ann!',
        'Is it sunny?',
        'echo Is it sunny?',
      ]);
      // The sim endpoint does not play Twilio's side.
      expect(okBody(await simInbound({ channel: 'sms', from: to, to: TWILIO_NUMBER, body: 'x' }))).toEqual({
        chat_id: null,
        agent_message: null,
      });
    });

    it('refuses a webhook with a bad or missing signature (401) and changes nothing', async () => {
      const to = user();
      const id = await start(twilioPayload(to));
      const before = twilio.requests.length;
      const webhook = signedInboundWebhook({
        url: `${TEST_PUBLIC_URL}${INBOUND_PATH}`,
        from: to,
        to: TWILIO_NUMBER,
        body: 'original',
      });
      const tampered = { ...webhook, form: { ...webhook.form, Body: 'tampered' } };
      expectErrorBody(await postTwilioWebhook(tampered), 401, 'auth');
      const wrongUrl = signedInboundWebhook({
        url: 'https://elsewhere.example/v2/messaging/twilio/inbound',
        from: to,
        to: TWILIO_NUMBER,
        body: 'x',
      });
      expectErrorBody(await postTwilioWebhook(wrongUrl), 401, 'auth');
      const { 'x-twilio-signature': _dropped, ...unsigned } = webhook.headers;
      expectErrorBody(await postTwilioWebhook({ headers: unsigned, form: webhook.form }), 401, 'auth');
      expect(twilio.requests).toHaveLength(before);
      expect(okBody(await getChat(id)).conversation_history as Json[]).toHaveLength(1);
    });
  });
});
