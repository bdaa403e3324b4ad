import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimMessaging, type SimMessaging } from '../../src/providers/index.ts';
import { createScriptedLLM, type ScriptedReply } from '../../src/providers/testing/index.ts';
import { expectFieldError, type Json } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Actions as a client written for the vendor's published API sends them: the nested extractor
// create body and the flat update body, the published fields of every kind (and no `name` where
// the published body has none), `<variable>` placeholders, `content-type: application/json` with
// an empty body on DELETE. It reads the published response fields; the effects of placeholders
// are checked where they land (an HTTP server, the sim's outbox).

const JSON_TYPE = { 'content-type': 'application/json' };
const OURS = '+14155550177';

interface Seen {
  origin: 'a' | 'b';
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

// Two origins (the same host, two ports): `a` answers and redirects, `b` is somewhere else.
const seen: Seen[] = [];
const servers: http.Server[] = [];
const base = { a: '', b: '' };

beforeAll(async () => {
  for (const origin of ['a', 'b'] as const) {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const url = req.url ?? '/';
        seen.push({ origin, method: req.method ?? '', url, headers: req.headers, body });
        if (url.startsWith('/moved')) {
          res.statusCode = 307;
          res.setHeader('location', `${base.b}/weather`);
          res.end();
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ forecast: 'sunny' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    base[origin] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

forEachStore('compat: actions in the published shapes', (target) => {
  let t: TestApi;
  let sim: SimMessaging;
  const queue: ScriptedReply[] = [];

  beforeAll(async () => {
    sim = createSimMessaging();
    t = await createTestApi(target, {
      allowPrivateNetwork: true,
      messaging: { sim },
      llm: createScriptedLLM([() => queue.shift() ?? { text: 'OK.' }], { repeatLast: true }),
    });
    const res = await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: OURS, provider: 'sim' },
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(() => t.close());
  beforeEach(() => {
    queue.length = 0;
    seen.length = 0;
  });

  const create = (payload: Json) => t.call({ method: 'POST', url: '/v2/actions', payload });
  const update = (id: string, payload: Json) => t.call({ method: 'PUT', url: `/v2/actions/${id}`, payload });

  async function created(payload: Json) {
    const res = await create(payload);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as {
      status: string;
      response: { action_id: string; action_type: string; prompt_variables: unknown[] };
    };
    expect(body.status).toBe('ok');
    return body.response;
  }

  /** The published read: `response.actions[0]`. */
  async function published(id: string, query = ''): Promise<Json> {
    const res = await t.call({ method: 'GET', url: `/v2/actions/${id}${query}` });
    expect(res.statusCode, res.body).toBe(200);
    const actions = (res.json() as { response: { actions: Json[] } }).response.actions;
    expect(actions).toHaveLength(1);
    return actions[0] as Json;
  }

  async function newAgent(actionIds: string[], agent: Json = {}): Promise<string> {
    const res = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ agent: { prompt: 'p', greeting_message: 'Hi', ...agent } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = (res.json() as { response: { model_id: string } }).response.model_id;
    const attached = await t.call({
      method: 'POST',
      url: '/v2/actions/attach',
      payload: { model_id: id, actions: actionIds },
    });
    expect(attached.statusCode, attached.body).toBe(200);
    return id;
  }

  async function apiChat(agent: string, metadata: Json): Promise<string> {
    const id = randomUUID();
    const res = await t.call({
      method: 'POST',
      url: `/v2/chat/${id}`,
      payload: { model_id: agent, metadata },
    });
    expect(res.statusCode, res.body).toBe(200);
    return id;
  }

  async function say(chat: string, message: string): Promise<Json> {
    const res = await t.call({ method: 'POST', url: `/v2/chat/${chat}/messages`, payload: { message } });
    expect(res.statusCode, res.body).toBe(200);
    return (await t.call({ method: 'GET', url: `/v2/chat/${chat}` })).json().response as Json;
  }

  describe('INFORMATION_EXTRACTOR', () => {
    it('creates from each nested question kind and stores it flat', async () => {
      const open = await created({
        INFORMATION_EXTRACTOR: {
          OPEN_QUESTION: {
            identifier: 'customer_name',
            description: 'The name of the caller',
            examples: ['Ann Lee'],
          },
        },
      });
      expect(open).toEqual({
        action_id: expect.any(String),
        action_type: 'extract_info_action_type',
        prompt_variables: [],
      });
      const yesNo = await created({ INFORMATION_EXTRACTOR: { YES_NO: { identifier: 'wants_demo' } } });
      const choice = await created({
        INFORMATION_EXTRACTOR: {
          SINGLE_CHOICE: { identifier: 'plan', description: 'Plan chosen', choices: ['basic', 'pro'] },
        },
      });

      const read = await published(open.action_id);
      expect(read).toMatchObject({
        action_id: open.action_id,
        name: 'customer_name',
        description: 'The name of the caller',
        config: {
          identifier: 'customer_name',
          description: 'The name of the caller',
          kind: 'open_question',
          examples: ['Ann Lee'],
        },
        input_variables: {
          values: [
            {
              name: 'customer_name',
              type: 'string',
              description: 'The name of the caller',
              example: 'Ann Lee',
            },
          ],
        },
      });
      // No description in the published YES_NO body: derived from the identifier.
      expect((await published(yesNo.action_id)).config).toEqual({
        identifier: 'wants_demo',
        description: 'wants demo',
        kind: 'yes_no',
      });
      expect((await published(choice.action_id)).config).toEqual({
        identifier: 'plan',
        description: 'Plan chosen',
        kind: 'single_choice',
        choices: ['basic', 'pro'],
      });
    });

    it('takes the flat published update, keeping the question kind', async () => {
      const { action_id } = await created({
        INFORMATION_EXTRACTOR: { SINGLE_CHOICE: { identifier: 'plan', choices: ['basic'] } },
      });
      const res = await update(action_id, {
        INFORMATION_EXTRACTOR: {
          identifier: 'plan_chosen',
          description: 'Which plan they take',
          choices: ['basic', 'pro'],
          examples: ['pro'],
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { action_id } });
      const read = await published(action_id);
      expect(read.name).toBe('plan_chosen');
      expect(read.config).toEqual({
        identifier: 'plan_chosen',
        description: 'Which plan they take',
        kind: 'single_choice',
        choices: ['basic', 'pro'],
        examples: ['pro'],
      });
      // A nested question in an update replaces the question whole.
      expect(
        (await update(action_id, { INFORMATION_EXTRACTOR: { YES_NO: { identifier: 'ok' } } })).statusCode,
      ).toBe(200);
      expect((await published(action_id)).config).toEqual({
        identifier: 'ok',
        description: 'Which plan they take',
        kind: 'yes_no',
      });
    });

    it('refuses unknown or several question kinds, wrong types and mixed forms, naming the field', async () => {
      const bad = (extractor: Json) => create({ INFORMATION_EXTRACTOR: extractor });
      const unknown = expectFieldError(await bad({ MULTIPLE_CHOICE: { identifier: 'x' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'MULTIPLE_CHOICE',
      ]);
      expect(unknown.description).toContain('YES_NO, SINGLE_CHOICE, OPEN_QUESTION');
      expectFieldError(await bad({ YES_NO: { identifier: 'a' }, OPEN_QUESTION: { identifier: 'b' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
      ]);
      expectFieldError(await bad({ YES_NO: { identifier: 5 } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'YES_NO',
        'identifier',
      ]);
      expectFieldError(await bad({ YES_NO: { description: 'no identifier' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'YES_NO',
        'identifier',
      ]);
      expectFieldError(await bad({ OPEN_QUESTION: { identifier: 'x', examples: 'one' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'OPEN_QUESTION',
        'examples',
      ]);
      expectFieldError(await bad({ SINGLE_CHOICE: { identifier: 'x' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'SINGLE_CHOICE',
        'choices',
      ]);
      expectFieldError(await bad({ YES_NO: 'yes' }), ['body', 'INFORMATION_EXTRACTOR', 'YES_NO']);
      expectFieldError(await bad({ identifier: 'x', YES_NO: { identifier: 'x' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'identifier',
      ]);
      expectFieldError(await bad({}), ['body', 'INFORMATION_EXTRACTOR', 'identifier']);
    });
  });

  describe('the other kinds', () => {
    it('takes a published LIVE_TRANSFER (direct phone or phone book) without a name', async () => {
      const direct = {
        transfer_mode: 'warm_transfer_with_context',
        phone: '+14155550100',
        instructions: 'The caller asks for a manager',
        initiating_msg: 'Connecting you now.',
        message_to_transfer_target: 'A caller about billing.',
        timeout: 30,
        digits: '12#',
        goodbye_msg: 'Bye for now.',
        failed_msg: 'Nobody is free.',
        stop_recording_after_transfer: true,
        human_detection: true,
        human_detection_timeout_seconds: 60,
        summarization_prompt: 'Summarize the call',
        preserve_caller_id: false,
        screened: false,
        human_availability: {
          timezone: 'Europe/Berlin',
          schedule: [{ weekday: 'monday', interval: [{ from: '09:00', to: '17:00' }] }],
          unavailable_message: 'We are closed.',
          active: true,
        },
      };
      const { action_id, action_type } = await created({ LIVE_TRANSFER: direct });
      expect(action_type).toBe('transfer_call_action_type');
      const read = await published(action_id);
      expect(read).toMatchObject({
        name: 'transfer_call',
        description: 'The caller asks for a manager',
        config: { ...direct, name: 'transfer_call' },
        parameters_hard_coded: direct,
      });
      const book = await created({
        LIVE_TRANSFER: {
          transfer_mode: 'cold_transfer',
          phone_book_id: 'pb_1',
          instructions: 'x',
          initiating_msg: 'y',
        },
      });
      expect((await published(book.action_id)).config).toMatchObject({ phone_book_id: 'pb_1' });
      // The published update adds enable_background_music.
      const res = await update(action_id, { LIVE_TRANSFER: { enable_background_music: true } });
      expect(res.statusCode, res.body).toBe(200);
      expect((await published(action_id)).config).toMatchObject({ enable_background_music: true });

      const transfer = (extra: Json) => create({ LIVE_TRANSFER: { ...direct, ...extra } });
      expectFieldError(await transfer({ transfer_mode: 'hot_transfer' }), [
        'body',
        'LIVE_TRANSFER',
        'transfer_mode',
      ]);
      expectFieldError(await transfer({ human_detection_timeout_seconds: 5 }), [
        'body',
        'LIVE_TRANSFER',
        'human_detection_timeout_seconds',
      ]);
      const availability = (patch: Json) =>
        transfer({ human_availability: { ...direct.human_availability, ...patch } });
      expectFieldError(await availability({ timezone: 'Mars/Base' }), [
        'body',
        'LIVE_TRANSFER',
        'human_availability',
        'timezone',
      ]);
      const monday = { weekday: 'monday', interval: [{ from: '09:00', to: '17:00' }] };
      expectFieldError(await availability({ schedule: [monday, monday] }), [
        'body',
        'LIVE_TRANSFER',
        'human_availability',
        'schedule',
        1,
        'weekday',
      ]);
      expectFieldError(
        await availability({ schedule: [{ weekday: 'monday', interval: [{ from: '9am', to: '17:00' }] }] }),
        ['body', 'LIVE_TRANSFER', 'human_availability', 'schedule', 0, 'interval', 0, 'from'],
      );
      expectFieldError(
        await availability({ schedule: [{ weekday: 'monday', interval: [{ from: '17:00', to: '09:00' }] }] }),
        ['body', 'LIVE_TRANSFER', 'human_availability', 'schedule', 0, 'interval', 0, 'to'],
      );
      expectFieldError(await create({ LIVE_TRANSFER: { instructions: 'x' } }), [
        'body',
        'LIVE_TRANSFER',
        'phone',
      ]);
    });

    it('takes a published REAL_TIME_BOOKING with first_appt_date, CALCOM and GHL', async () => {
      const booking = {
        first_appt_date: '2026-11-02',
        max_time_slots: 3,
        min_hours_diff: 3,
        no_of_days: 3,
        timezone: 'Europe/Berlin',
        CALCOM: { event_id: '123', integration: 'GMeet', sms_boolean: false, user_email: 'me@example.com' },
        GHL: { calendar_id: 'cal_1', autoconfirm: 'confirmed', booking_title: 'Demo' },
      };
      const { action_id, action_type } = await created({ REAL_TIME_BOOKING: booking });
      expect(action_type).toBe('real_time_booking_action_type');
      expect(await published(action_id)).toMatchObject({
        name: 'appointment',
        config: { ...booking, name: 'appointment' },
      });
      const bad = (patch: Json) => create({ REAL_TIME_BOOKING: { ...booking, ...patch } });
      expectFieldError(await bad({ first_appt_date: '2026-13-40' }), [
        'body',
        'REAL_TIME_BOOKING',
        'first_appt_date',
      ]);
      expectFieldError(await bad({ CALCOM: { event_id: '1', integration: 'Teams' } }), [
        'body',
        'REAL_TIME_BOOKING',
        'CALCOM',
        'integration',
      ]);
      expectFieldError(await bad({ GHL: { autoconfirm: 'maybe' } }), [
        'body',
        'REAL_TIME_BOOKING',
        'GHL',
        'autoconfirm',
      ]);
      expectFieldError(await bad({ timezone: undefined }), ['body', 'REAL_TIME_BOOKING', 'timezone']);
    });

    it('takes published SEND_SMS, INCALL_SMS and INCALL_WHATSAPP bodies, naming their prompt variables', async () => {
      const sms = await created({
        SEND_SMS: { content: 'Thanks <user_name>!', instructions: 'After a sale' },
      });
      expect(sms).toMatchObject({ action_type: 'send_sms_action_type', prompt_variables: ['user_name'] });
      expect(await published(sms.action_id)).toMatchObject({
        name: 'send_sms_after_call',
        description: 'After a sale',
        parameters_hard_coded: { sms_message_text: 'Thanks <user_name>!' },
      });
      const incall = await created({
        INCALL_SMS: {
          message_body: 'Your code is {code}',
          wait_for_reply: true,
          timeout_seconds: 60,
          fallback_message: 'No reply yet.',
          message_before_action: 'I am texting you.',
        },
      });
      expect(incall.prompt_variables).toEqual(['code']);
      expect((await published(incall.action_id)).name).toBe('send_sms');
      const whatsapp = await created({
        INCALL_WHATSAPP: { content_sid: 'HX0123', content_variables: { '1': '<user_name>', '2': '{city}' } },
      });
      expect(whatsapp).toMatchObject({
        action_type: 'incall_whatsapp_action_type',
        prompt_variables: ['user_name', 'city'],
      });
      expectFieldError(
        await create({ INCALL_WHATSAPP: { content_sid: 'HX1', content_variables: { '1': 7 } } }),
        ['body', 'INCALL_WHATSAPP', 'content_variables', 1],
      );
    });

    it('refuses unknown kinds and several kinds, naming them', async () => {
      const evaluation = {
        CUSTOM_EVAL: { question: { identifier: 'polite', text: 'Was the agent polite?' } },
      };
      expectFieldError(await create({ ...evaluation, SEND_SMS: { content: 'x' } }), ['body']);
      expectFieldError(await create({ BOOKING: { timezone: 'Europe/Berlin' } }), ['body']);
    });
  });

  describe('CUSTOM_EVAL', () => {
    it('accepts the published body and reads it back in the published fields', async () => {
      const question = {
        identifier: 'polite',
        text: 'Was the agent polite?',
        category: 'pass_fail',
        expected_result: 'true',
      };
      const made = await created({ CUSTOM_EVAL: { question } });
      expect(made.action_type).toBe('custom_eval_action_type');
      expect(made.prompt_variables).toEqual([]);
      const read = await published(made.action_id);
      expect(read).toMatchObject({
        action_id: made.action_id,
        name: 'polite',
        description: 'Was the agent polite?',
        parameters_hard_coded: { question },
        input_variables: { values: [] },
      });
      expect(typeof read.action_type).toBe('string');
      // Each published category; the published update shape (accepted by Parley) merges.
      for (const category of ['numeric', 'descriptive', 'likert_scale']) {
        const other = await created({ CUSTOM_EVAL: { question: { ...question, category } } });
        expect((await published(other.action_id)).parameters_hard_coded).toEqual({
          question: { ...question, category },
        });
      }
      const res = await update(made.action_id, { CUSTOM_EVAL: { question: { expected_result: 'false' } } });
      expect(res.statusCode, res.body).toBe(200);
      expect((await published(made.action_id)).parameters_hard_coded).toEqual({
        question: { ...question, expected_result: 'false' },
      });
    });
  });

  describe('CUSTOM_ACTION', () => {
    const weather = (overrides: Json = {}) => ({
      http_mode: 'POST',
      url: `${base.a}/weather`,
      run_action_before_call_start: false,
      name: 'get_weather',
      description: 'The caller asks about the weather',
      speech_while_using_the_tool: 'Let me check.',
      action_sound: 'typing',
      integration: 'hubspot',
      failure_timeout: 5,
      custom_auth: { is_needed: true, location: 'header', key: 'Bearer', value: 'tok-<user_name>' },
      variables_before_the_call: [{ key: 'units', value: 'metric' }],
      variables_during_the_call: [{ name: 'city', description: 'The city', example: 'Oslo', type: 'string' }],
      headers: [{ key: 'X-Api-Key', value: 'k-123' }],
      query_parameters: [
        { key: 'city', value: '<city>' },
        { key: 'units', value: '<units>' },
      ],
      agent_speak_naturally: false,
      message_delay: 'Still working on it.',
      message_delay_time: 3,
      message_error: 'The weather service is down.',
      json_body_stringified:
        '{"city": "<city>", "who": "<user_name>", "html": "<b>hi</b> and a < b", "n": <count>}',
      prompt: 'Report the forecast',
      message_before_action_starts: 'This call may be recorded.',
      ...overrides,
    });

    it('takes every published field and fills <variable> placeholders when it runs in a chat', async () => {
      const action = await created({ CUSTOM_ACTION: weather() });
      expect(action).toEqual({
        action_id: expect.any(String),
        action_type: 'custom_action_type',
        prompt_variables: ['user_name', 'count'],
      });
      const read = await published(action.action_id);
      expect(read).toMatchObject({
        action_id: action.action_id,
        action_type: 'custom_action_type',
        name: 'get_weather',
        description: 'The caller asks about the weather',
        parameters_hard_coded: { url: `${base.a}/weather`, http_mode: 'POST' },
        input_variables: {
          values: [{ name: 'city', type: 'string', description: 'The city', example: 'Oslo' }],
        },
      });

      const agent = await newAgent([action.action_id]);
      // `b` is a variable too: <b> in the HTML is still left alone (the template closes it).
      const chat = await apiChat(agent, { user_name: 'Ada', count: 2, b: 'bold' });
      queue.push({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Sunny.' });
      const after = await say(chat, 'weather in Oslo?');
      expect(seen.map((s) => [s.origin, s.method])).toEqual([['a', 'POST']]);
      const hit = seen[0] as Seen;
      const query = new URL(hit.url, base.a).searchParams;
      expect(query.get('city')).toBe('Oslo');
      expect(query.get('units')).toBe('metric');
      expect(JSON.parse(hit.body)).toEqual({ city: 'Oslo', who: 'Ada', html: '<b>hi</b> and a < b', n: 2 });
      expect(hit.headers).toMatchObject({ 'x-api-key': 'k-123', authorization: 'Bearer tok-Ada' });
      expect(after.executed_actions).toMatchObject({
        get_weather: {
          error_message: null,
          message_before_action: 'This call may be recorded. Let me check.',
        },
      });
    });

    it('sends none of its headers (nor custom_auth) to another origin it is redirected to', async () => {
      const action = await created({
        CUSTOM_ACTION: weather({ http_mode: 'GET', url: `${base.a}/moved`, json_body_stringified: '' }),
      });
      const agent = await newAgent([action.action_id]);
      const chat = await apiChat(agent, { user_name: 'Ada' });
      queue.push({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'Sunny.' });
      const after = await say(chat, 'weather?');
      expect(seen.map((s) => [s.origin, new URL(s.url, base.a).pathname])).toEqual([
        ['a', '/moved'],
        ['b', '/weather'],
      ]);
      expect(seen[0]?.headers).toMatchObject({ 'x-api-key': 'k-123', authorization: 'Bearer tok-Ada' });
      expect(seen[1]?.headers['x-api-key']).toBeUndefined();
      expect(seen[1]?.headers.authorization).toBeUndefined();
      expect(after.executed_actions).toMatchObject({ get_weather: { error_message: null } });
    });

    it('refuses wrong published field types and a body that is not JSON even with placeholders', async () => {
      const bad = (patch: Json) => create({ CUSTOM_ACTION: weather(patch) });
      expectFieldError(await bad({ action_sound: 'drums' }), ['body', 'CUSTOM_ACTION', 'action_sound']);
      expectFieldError(await bad({ integration: 'zoho' }), ['body', 'CUSTOM_ACTION', 'integration']);
      expectFieldError(await bad({ variables_before_the_call: [{ key: 'a' }] }), [
        'body',
        'CUSTOM_ACTION',
        'variables_before_the_call',
        0,
        'value',
      ]);
      expectFieldError(await bad({ json_body_stringified: '{"city": <city>' }), [
        'body',
        'CUSTOM_ACTION',
        'json_body_stringified',
      ]);
      expect((await bad({ action_sound: null })).statusCode).toBe(200);
    });
  });

  it('fills WhatsApp content_variables from the conversation when the action runs', async () => {
    const { action_id } = await created({
      INCALL_WHATSAPP: {
        content_sid: 'HX0456',
        content_variables: { '1': '<user_name>', '2': 'code {code}' },
      },
    });
    const agent = await newAgent([action_id]);
    const phones = await t.call({
      method: 'PUT',
      url: `/v2/assistants/${agent}/phone_numbers`,
      payload: { phone_numbers: [OURS] },
    });
    expect(phones.statusCode, phones.body).toBe(200);
    const lead = '+14155550911';
    const started = await t.call({
      method: 'POST',
      url: '/v2/chat/outbound',
      payload: {
        agent_id: agent,
        channel: 'whatsapp',
        to_number: lead,
        from_number: OURS,
        template: { content_sid: 'HX0001' },
        custom_variables: { user_name: 'Ada', code: 42 },
      },
    });
    expect(started.statusCode, started.body).toBe(200);
    queue.push({ toolCalls: [{ name: 'send_whatsapp', arguments: {} }] }, { text: 'Sent.' });
    const inbound = await t.call({
      method: 'POST',
      url: '/v2/messaging/sim/inbound',
      payload: { channel: 'whatsapp', from: lead, to: OURS, body: 'send me the details' },
    });
    expect(inbound.statusCode, inbound.body).toBe(200);
    // The opening template, the action's template with its variables filled, the agent's reply.
    expect(sim.sent().filter((m) => m.to === lead)).toEqual([
      expect.objectContaining({ template: { contentSid: 'HX0001' } }),
      expect.objectContaining({
        channel: 'whatsapp',
        template: { contentSid: 'HX0456', variables: { '1': 'Ada', '2': 'code 42' } },
      }),
      expect.objectContaining({ body: 'Sent.' }),
    ]);
  });

  it('lists and deletes in the published shapes (DELETE with a JSON content type and no body)', async () => {
    const { action_id } = await created({ SEND_SMS: { content: 'Bye', instructions: 'At the end' } });
    const list = await t.call({ method: 'GET', url: '/v2/actions?limit=1&offset=0' });
    expect(list.statusCode).toBe(200);
    const page = (list.json() as { response: { pagination: Json; actions: Json[] } }).response;
    expect(page.pagination).toMatchObject({ limit: 1, offset: 0 });
    expect(page.actions[0]).toMatchObject({
      action_id,
      action_type: 'send_sms_action_type',
      name: 'send_sms_after_call',
      description: 'At the end',
      parameters_hard_coded: { sms_message_text: 'Bye' },
    });
    expect(
      (await t.call({ method: 'GET', url: `/v2/actions/${action_id}?include_assistants=true` })).statusCode,
    ).toBe(200);
    const gone = await t.call({
      method: 'DELETE',
      url: `/v2/actions/${action_id}`,
      headers: JSON_TYPE,
      payload: '',
    });
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json()).toEqual({ status: 'ok', response: { action_id, answer: 'ok' } });
  });

  it('attaches with the published items, reads the agents back and initializes a custom action', async () => {
    const { action_id } = await created({
      CUSTOM_ACTION: {
        http_mode: 'GET',
        url: `${base.a}/weather`,
        run_action_before_call_start: false,
        name: 'get_weather',
        description: 'The caller asks about the weather',
        variables_during_the_call: [
          { name: 'city', description: 'The city', example: 'Oslo', type: 'string' },
        ],
        query_parameters: [{ key: 'city', value: '<city>' }],
      },
    });
    const made = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() });
    const agent = (made.json() as { response: { model_id: string } }).response.model_id;
    const attached = await t.call({
      method: 'POST',
      url: '/v2/actions/attach',
      payload: {
        model_id: agent,
        items: [
          {
            action_id,
            attachment_type: 'during',
            trigger_condition: 'When the caller asks about the weather outside',
            input_variables_mapping: [
              {
                variable_name: 'city',
                source: 'llm',
                hardcoded_value: null,
                llm_config: { description: 'The city to forecast', example: 'Oslo', required: true },
              },
            ],
          },
        ],
      },
    });
    expect(attached.statusCode, attached.body).toBe(200);
    expect((attached.json() as { status: string }).status).toBe('ok');

    const read = await published(action_id, '?include_assistants=true');
    expect(read.assistants).toEqual([agent]);
    expect(read.input_variables).toEqual({
      values: [{ name: 'city', type: 'string', description: 'The city', example: 'Oslo' }],
      assistants: [
        {
          model_id: agent,
          attachment_type: 'during',
          trigger_condition: 'When the caller asks about the weather outside',
          input_variables_mapping: [
            {
              variable_name: 'city',
              source: 'llm',
              hardcoded_value: null,
              llm_config: { description: 'The city to forecast', example: 'Oslo', required: true },
            },
          ],
        },
      ],
    });

    const init = await t.call({
      method: 'POST',
      url: '/v2/actions/initialize',
      payload: { action_id, variables: [{ key: 'city', value: 'Oslo' }] },
    });
    expect(init.statusCode, init.body).toBe(200);
    const body = init.json() as { status: string; response: { answer: string } };
    expect(body.status).toBe('ok');
    expect(typeof body.response.answer).toBe('string');
    expect(JSON.parse(body.response.answer)).toEqual({ forecast: 'sunny' });
    expect(seen.map((x) => [x.origin, x.method, new URL(x.url, base.a).searchParams.get('city')])).toEqual([
      ['a', 'GET', 'Oslo'],
    ]);
    expectFieldError(
      await t.call({ method: 'POST', url: '/v2/actions/initialize', payload: { variables: [] } }),
      ['body', 'action_id'],
    );
  });
});
