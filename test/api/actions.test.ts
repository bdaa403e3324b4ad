import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import {
  expectErrorBody,
  expectFieldError,
  expectNotFound,
  ISO,
  type Json,
  type Payload,
  MISSING_ID,
  UUID,
} from '../assertions.ts';

// Actions (WIRE.md section 8) through the HTTP layer, once per dialect: storage, the kind rules,
// attachment to agents and what agent reads show of them.

const EXTRACTOR = {
  identifier: 'email',
  description: 'The caller asks to be emailed',
  kind: 'open_question',
  examples: ['ann@example.com'],
};
const TRANSFER = { name: 'Front desk', phone: '+14155550100', transfer_mode: 'warm_transfer' };
const CUSTOM = {
  name: 'Lookup order',
  description: 'The caller asks about an order',
  http_mode: 'POST',
  url: 'https://example.com/orders',
  json_body_stringified: '{"order": "{order_id}"}',
  variables_during_the_call: [
    { name: 'order_id', description: 'The order number', example: 'A-1', type: 'string' },
  ],
};

forEachStore('actions API', (target) => {
  let t: TestApi;

  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  const create = (payload: Payload, key?: string) =>
    t.call({ method: 'POST', url: '/v2/actions', payload, key });
  const get = (id: string, key?: string) => t.call({ method: 'GET', url: `/v2/actions/${id}`, key });
  const update = (id: string, payload: Payload, key?: string) =>
    t.call({ method: 'PUT', url: `/v2/actions/${id}`, payload, key });
  const remove = (id: string, key?: string) => t.call({ method: 'DELETE', url: `/v2/actions/${id}`, key });
  const attach = (model_id: string, actions: string[], key?: string) =>
    t.call({ method: 'POST', url: '/v2/actions/attach', payload: { model_id, actions }, key });
  const detach = (model_id: string, actions: string[], key?: string) =>
    t.call({ method: 'POST', url: '/v2/actions/detach', payload: { model_id, actions }, key });

  async function mustCreate(payload: Json, key?: string): Promise<string> {
    const res = await create(payload, key);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: { action_id: string } }).response.action_id;
  }

  async function newAgent(key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody(), key });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: { model_id: string } }).response.model_id;
  }

  async function readAgent(id: string, includeActions?: boolean) {
    const q = includeActions === undefined ? '' : `?include_actions=${includeActions}`;
    const res = await t.call({ method: 'GET', url: `/v2/assistants/${id}${q}` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: { assistants: Json[] } }).response.assistants[0] as Json;
  }

  describe('create and read', () => {
    it('creates each kind, answering its action_type, and reads it back as stored', async () => {
      const cases: [string, Json, string][] = [
        ['INFORMATION_EXTRACTOR', EXTRACTOR, 'extract_info_action_type'],
        ['LIVE_TRANSFER', TRANSFER, 'transfer_call_action_type'],
        [
          'SEND_SMS',
          { name: 'Recap', content: 'Thanks for calling', instructions: 'Send a recap' },
          'send_sms_action_type',
        ],
        [
          'INCALL_SMS',
          { name: 'Link', message_body: 'Here is the link', wait_for_reply: false },
          'incall_sms_action_type',
        ],
        ['INCALL_WHATSAPP', { name: 'Template', content_sid: 'HX123' }, 'incall_whatsapp_action_type'],
        [
          'REAL_TIME_BOOKING',
          { name: 'Book', timezone: 'Europe/Paris', no_of_days: 7 },
          'real_time_booking_action_type',
        ],
        ['CUSTOM_ACTION', CUSTOM, 'custom_action_type'],
      ];
      for (const [kind, config, actionType] of cases) {
        const res = await create({ [kind]: config });
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as {
          status: string;
          response: { action_id: string; action_type: string; prompt_variables: string[] };
        };
        expect(body.status).toBe('ok');
        expect(Object.keys(body.response).sort()).toEqual(['action_id', 'action_type', 'prompt_variables']);
        expect(body.response.action_id).toMatch(UUID);
        expect(body.response.action_type).toBe(actionType);
        // The custom action's only placeholder is its own variable: nothing for the conversation.
        expect(body.response.prompt_variables).toEqual([]);
        const read = await get(body.response.action_id);
        expect(read.statusCode).toBe(200);
        const { actions, ...action } = (read.json() as { response: Json & { actions: Json[] } }).response;
        const { name: _name, description: _description, ...hardCoded } = config;
        expect(action).toEqual({
          action_id: body.response.action_id,
          kind,
          action_type: actionType,
          name: kind === 'INFORMATION_EXTRACTOR' ? 'email' : config.name,
          description: config.description ?? config.instructions ?? '',
          config,
          parameters_hard_coded: {
            ...hardCoded,
            ...(kind === 'SEND_SMS' ? { sms_message_text: config.content } : {}),
            ...(kind === 'INCALL_SMS' ? { sms_message_text: config.message_body } : {}),
          },
          input_variables: { values: expect.any(Array) },
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
        });
        // The published shape: the same action as a one-element `actions` array.
        expect(actions).toEqual([action]);
      }
    });

    it('reads input_variables in the published value types', async () => {
      const read = async (payload: Json) =>
        ((await get(await mustCreate(payload))).json() as { response: { input_variables: Json } }).response
          .input_variables;
      expect(await read({ INFORMATION_EXTRACTOR: EXTRACTOR })).toEqual({
        values: [
          { name: 'email', type: 'string', description: EXTRACTOR.description, example: 'ann@example.com' },
        ],
      });
      expect(
        await read({ INFORMATION_EXTRACTOR: { identifier: 'ok', description: 'Agrees', kind: 'yes_no' } }),
      ).toEqual({ values: [{ name: 'ok', type: 'boolean', description: 'Agrees', example: '' }] });
      const typed = await read({
        CUSTOM_ACTION: {
          ...CUSTOM,
          variables_during_the_call: [
            { name: 'a', type: 'int' },
            { name: 'b', type: 'float' },
            { name: 'c', type: 'bool' },
            { name: 'd', type: 'email' },
            { name: 'e' },
          ],
        },
      });
      expect((typed.values as Json[]).map((v) => [v.name, v.type])).toEqual([
        ['a', 'integer'],
        ['b', 'number'],
        ['c', 'boolean'],
        ['d', 'string'],
        ['e', 'string'],
      ]);
      expect(await read({ LIVE_TRANSFER: TRANSFER })).toEqual({ values: [] });
    });

    it('lists newest first with limit/offset and rejects out-of-range paging', async () => {
      const { key } = t.other;
      const first = await mustCreate({ SEND_SMS: { name: 'one', content: 'x' } }, key);
      const second = await mustCreate({ SEND_SMS: { name: 'two', content: 'x' } }, key);
      const res = await t.call({ method: 'GET', url: '/v2/actions', key });
      expect(res.statusCode).toBe(200);
      const body = (res.json() as { response: { pagination: Json; actions: Json[] } }).response;
      expect(body.pagination).toEqual({ total_records: 2, limit: 20, offset: 0 });
      expect(body.actions.map((a) => a.action_id)).toEqual([second, first]);
      const page = await t.call({ method: 'GET', url: '/v2/actions?limit=1&offset=1', key });
      const paged = (page.json() as { response: { pagination: Json; actions: Json[] } }).response;
      expect(paged.pagination).toEqual({ total_records: 2, limit: 1, offset: 1 });
      expect(paged.actions.map((a) => a.action_id)).toEqual([first]);
      expectFieldError(await t.call({ method: 'GET', url: '/v2/actions?limit=0' }), ['query', 'limit']);
      expectFieldError(await t.call({ method: 'GET', url: '/v2/actions?limit=1001' }), ['query', 'limit']);
      expectFieldError(await t.call({ method: 'GET', url: '/v2/actions?offset=-1' }), ['query', 'offset']);
      expect((await t.call({ method: 'GET', url: '/v2/actions?limit=1000' })).statusCode).toBe(200);
    });

    it('requires a key', async () => {
      expectErrorBody(await t.call({ method: 'GET', url: '/v2/actions', key: null }), 401, 'auth');
      expectErrorBody(await create({ SEND_SMS: { name: 'a', content: 'b' } }, 'pk_nope'), 401, 'auth');
    });
  });

  describe('the kind rules', () => {
    it('takes exactly one kind key', async () => {
      const none = expectFieldError(await create({}), ['body']);
      expect(none.description).toMatch(/exactly one of/);
      expectFieldError(await create({ unrelated: 1 }), ['body']);
      const two = expectFieldError(
        await create({ SEND_SMS: { name: 'a', content: 'b' }, LIVE_TRANSFER: TRANSFER }),
        ['body'],
      );
      expect(two.description).toContain('LIVE_TRANSFER, SEND_SMS');
    });

    it("requires each kind's fields", async () => {
      expectFieldError(await create({ INFORMATION_EXTRACTOR: { identifier: 'x', kind: 'yes_no' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'description',
      ]);
      expectFieldError(await create({ INFORMATION_EXTRACTOR: { ...EXTRACTOR, kind: 'maybe' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'kind',
      ]);
      expectFieldError(await create({ INFORMATION_EXTRACTOR: { ...EXTRACTOR, kind: 'single_choice' } }), [
        'body',
        'INFORMATION_EXTRACTOR',
        'choices',
      ]);
      expectFieldError(await create({ LIVE_TRANSFER: { name: 'x' } }), ['body', 'LIVE_TRANSFER', 'phone']);
      expectFieldError(await create({ LIVE_TRANSFER: { name: 'x', phone: 'call me' } }), [
        'body',
        'LIVE_TRANSFER',
        'phone',
      ]);
      expectFieldError(await create({ SEND_SMS: { name: 'x' } }), ['body', 'SEND_SMS', 'content']);
      expectFieldError(await create({ INCALL_SMS: { name: 'x' } }), ['body', 'INCALL_SMS', 'message_body']);
      expectFieldError(await create({ INCALL_WHATSAPP: { name: 'x', wait_for_reply: true } }), [
        'body',
        'INCALL_WHATSAPP',
        'message_body',
      ]);
      expectFieldError(await create({ REAL_TIME_BOOKING: { name: 'x' } }), [
        'body',
        'REAL_TIME_BOOKING',
        'timezone',
      ]);
      expectFieldError(await create({ REAL_TIME_BOOKING: { name: 'x', timezone: 'Mars/Base' } }), [
        'body',
        'REAL_TIME_BOOKING',
        'timezone',
      ]);
      // The calendar: builtin (default) or Cal.com with a key and an event type; nothing else.
      const booking = (calendar: unknown) => ({
        REAL_TIME_BOOKING: { name: 'x', timezone: 'Europe/Paris', calendar },
      });
      expectFieldError(await create(booking('google-42')), ['body', 'REAL_TIME_BOOKING', 'calendar']);
      expectFieldError(await create(booking({ provider: 'outlook' })), [
        'body',
        'REAL_TIME_BOOKING',
        'calendar',
        'provider',
      ]);
      expectFieldError(await create(booking({ provider: 'calcom', event_type_id: 7 })), [
        'body',
        'REAL_TIME_BOOKING',
        'calendar',
        'api_key',
      ]);
      expectFieldError(await create(booking({ provider: 'calcom', api_key: 'k', event_type_id: 'seven' })), [
        'body',
        'REAL_TIME_BOOKING',
        'calendar',
        'event_type_id',
      ]);
      expectFieldError(
        await create(booking({ provider: 'calcom', api_key: 'k', event_type_id: 7, base_url: 'ftp://x' })),
        ['body', 'REAL_TIME_BOOKING', 'calendar', 'base_url'],
      );
      for (const ok of ['builtin', { provider: 'calcom', api_key: 'k', event_type_id: 7 }]) {
        expect((await create(booking(ok))).statusCode).toBe(200);
      }
      expectFieldError(await create({ CUSTOM_ACTION: { name: 'x', url: 'https://a.example' } }), [
        'body',
        'CUSTOM_ACTION',
        'http_mode',
      ]);
      expectFieldError(await create({ CUSTOM_ACTION: { name: 'x', http_mode: 'GET' } }), [
        'body',
        'CUSTOM_ACTION',
        'url',
      ]);
      expectFieldError(await create({ CUSTOM_ACTION: { ...CUSTOM, http_mode: 'DELETE' } }), [
        'body',
        'CUSTOM_ACTION',
        'http_mode',
      ]);
      expectFieldError(await create({ SEND_SMS: { name: 5, content: 'x' } }), ['body', 'SEND_SMS', 'name']);
    });

    it('takes only http(s) URLs and a JSON body template for a custom action', async () => {
      for (const url of ['ftp://example.com/x', 'not a url', 'javascript:alert(1)', '']) {
        expectFieldError(await create({ CUSTOM_ACTION: { ...CUSTOM, url } }), [
          'body',
          'CUSTOM_ACTION',
          'url',
        ]);
      }
      const bad = expectFieldError(
        await create({ CUSTOM_ACTION: { ...CUSTOM, json_body_stringified: '{order: 1' } }),
        ['body', 'CUSTOM_ACTION', 'json_body_stringified'],
      );
      expect(bad.description).toContain('json_body_stringified');
      await mustCreate({
        CUSTOM_ACTION: { ...CUSTOM, url: 'http://example.com', json_body_stringified: '[1, 2]' },
      });
    });

    it('stores names exactly as typed and counts characters, not bytes or UTF-16 units', async () => {
      const emoji64 = '📞'.repeat(64);
      const cjk64 = '転送'.repeat(32);
      const spaced = '  Front  desk 📞 ';
      for (const kind of ['LIVE_TRANSFER', 'SEND_SMS', 'INCALL_SMS', 'INCALL_WHATSAPP']) {
        const base: Json =
          kind === 'LIVE_TRANSFER'
            ? { phone: '+14155550100' }
            : kind === 'SEND_SMS'
              ? { content: 'hi' }
              : { message_body: 'hi' };
        for (const name of [emoji64, cjk64, spaced, 'é'.normalize('NFD') + 'x']) {
          const id = await mustCreate({ [kind]: { ...base, name } });
          const read = (await get(id)).json() as { response: { name: string; config: Json } };
          expect(read.response.name).toBe(name);
          expect(read.response.config.name).toBe(name);
        }
        const d = expectFieldError(await create({ [kind]: { ...base, name: `${emoji64}📞` } }), [
          'body',
          kind,
          'name',
        ]);
        expect(d.description).toContain(`body.${kind}.name`);
        expectFieldError(await create({ [kind]: { ...base, name: `${cjk64}転` } }), ['body', kind, 'name']);
        expectFieldError(await create({ [kind]: { ...base, name: '' } }), ['body', kind, 'name']);
      }
    });
  });

  describe('get, update and delete', () => {
    it('answers 404 for an unknown action or another workspace’s', async () => {
      const id = await mustCreate({ LIVE_TRANSFER: TRANSFER });
      expectNotFound(await get(MISSING_ID));
      expectNotFound(await get('not-a-uuid'));
      expectNotFound(await get(id, t.other.key));
      expectNotFound(await remove(id, t.other.key));
      // The specification lists only 400 for the update: unknown is a 400 with category not_found.
      expectNotFound(await update(id, { LIVE_TRANSFER: { name: 'stolen' } }, t.other.key), 400);
      expectNotFound(await update(MISSING_ID, { LIVE_TRANSFER: { name: 'x' } }), 400);
      const list = await t.call({ method: 'GET', url: '/v2/actions', key: t.other.key });
      const ids = (list.json() as { response: { actions: Json[] } }).response.actions.map((a) => a.action_id);
      expect(ids).not.toContain(id);
      // Untouched by the other workspace's attempts.
      expect(((await get(id)).json() as { response: Json }).response.name).toBe(TRANSFER.name);
    });

    it("merges the action's own kind and refuses another", async () => {
      const id = await mustCreate({ LIVE_TRANSFER: TRANSFER });
      const res = await update(id, { LIVE_TRANSFER: { name: ' 新しい 📞 ', timeout: 30 } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { action_id: id } });
      const read = (await get(id)).json() as { response: Json };
      expect(read.response.name).toBe(' 新しい 📞 ');
      expect(read.response.config).toEqual({ ...TRANSFER, name: ' 新しい 📞 ', timeout: 30 });

      const other = expectFieldError(await update(id, { SEND_SMS: { content: 'x' } }), ['body', 'SEND_SMS']);
      expect(other.description).toContain('LIVE_TRANSFER');
      expectFieldError(await update(id, { LIVE_TRANSFER: { name: 'x' }, SEND_SMS: { content: 'x' } }), [
        'body',
        'SEND_SMS',
      ]);
      expectFieldError(await update(id, {}), ['body', 'LIVE_TRANSFER']);
      expectFieldError(await update(id, { LIVE_TRANSFER: { name: '📞'.repeat(65) } }), [
        'body',
        'LIVE_TRANSFER',
        'name',
      ]);
      expectFieldError(await update(id, { LIVE_TRANSFER: { phone: 'nope' } }), [
        'body',
        'LIVE_TRANSFER',
        'phone',
      ]);
      // Nothing of a refused update is kept.
      expect(((await get(id)).json() as { response: Json }).response.config).toEqual({
        ...TRANSFER,
        name: ' 新しい 📞 ',
        timeout: 30,
      });
    });

    it('checks the merged custom action', async () => {
      const id = await mustCreate({ CUSTOM_ACTION: CUSTOM });
      expectFieldError(await update(id, { CUSTOM_ACTION: { url: 'file:///etc/passwd' } }), [
        'body',
        'CUSTOM_ACTION',
        'url',
      ]);
      expectFieldError(await update(id, { CUSTOM_ACTION: { json_body_stringified: 'nope' } }), [
        'body',
        'CUSTOM_ACTION',
        'json_body_stringified',
      ]);
      expect(
        (await update(id, { CUSTOM_ACTION: { http_mode: 'GET', json_body_stringified: '' } })).statusCode,
      ).toBe(200);
      const cfg = ((await get(id)).json() as { response: { config: Json } }).response.config;
      expect(cfg.http_mode).toBe('GET');
      expect(cfg.url).toBe(CUSTOM.url);
    });

    it('deletes an action', async () => {
      const id = await mustCreate({ SEND_SMS: { name: 'bye', content: 'x' } });
      const res = await remove(id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { action_id: id, answer: 'ok' } });
      expectNotFound(await get(id));
      expectNotFound(await remove(id));
    });
  });

  describe('CUSTOM_EVAL', () => {
    const QUESTION = {
      identifier: 'polite',
      text: 'Was the agent polite?',
      category: 'pass_fail',
      expected_result: 'true',
    };
    const read = async (id: string) => {
      const res = await get(id);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { response: Json }).response;
    };

    it('creates the published body and reads it back like the other kinds', async () => {
      const res = await create({ CUSTOM_EVAL: { question: QUESTION } });
      expect(res.statusCode, res.body).toBe(200);
      const created = (res.json() as { response: Json }).response;
      expect(created).toEqual({
        action_id: expect.stringMatching(UUID),
        action_type: 'custom_eval_action_type',
        prompt_variables: [],
      });
      const { actions, ...action } = await read(created.action_id as string);
      expect(action).toEqual({
        action_id: created.action_id,
        kind: 'CUSTOM_EVAL',
        action_type: 'custom_eval_action_type',
        name: 'polite',
        description: 'Was the agent polite?',
        config: { question: QUESTION },
        parameters_hard_coded: { question: QUESTION },
        input_variables: { values: [] },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect(actions).toEqual([action]);
      const list = await t.call({ method: 'GET', url: '/v2/actions?limit=1000' });
      const listed = (list.json() as { response: { actions: Json[] } }).response.actions;
      expect(listed.find((a) => a.action_id === created.action_id)).toEqual(action);
    });

    it('stores category pass_fail when absent; every category is accepted', async () => {
      const id = await mustCreate({ CUSTOM_EVAL: { question: { identifier: 'q', text: 'Any issue?' } } });
      expect((await read(id)).config).toEqual({
        question: { identifier: 'q', text: 'Any issue?', category: 'pass_fail' },
      });
      for (const category of ['numeric', 'descriptive', 'likert_scale']) {
        const other = await mustCreate({ CUSTOM_EVAL: { question: { ...QUESTION, category } } });
        expect(((await read(other)).config as { question: Json }).question.category).toBe(category);
      }
    });

    it('refuses bad input naming the field', async () => {
      const bad = (question: unknown) => create({ CUSTOM_EVAL: { question } as Json });
      const where = (field: string) => ['body', 'CUSTOM_EVAL', 'question', field];
      expectFieldError(await bad({ ...QUESTION, category: 'vibes' }), where('category'));
      const { identifier: _i, ...noIdentifier } = QUESTION;
      expectFieldError(await bad(noIdentifier), where('identifier'));
      const { text: _t, ...noText } = QUESTION;
      expectFieldError(await bad(noText), where('text'));
      expectFieldError(await bad({ ...QUESTION, identifier: '' }), where('identifier'));
      expectFieldError(await bad({ ...QUESTION, identifier: 5 }), where('identifier'));
      expectFieldError(await bad({ ...QUESTION, text: ['x'] }), where('text'));
      expectFieldError(await bad({ ...QUESTION, expected_result: true }), where('expected_result'));
      expectFieldError(await bad('polite?'), ['body', 'CUSTOM_EVAL', 'question']);
      expectFieldError(await create({ CUSTOM_EVAL: {} }), ['body', 'CUSTOM_EVAL', 'question']);
      // Still one kind key only.
      expectFieldError(await create({ CUSTOM_EVAL: { question: QUESTION }, SEND_SMS: { content: 'x' } }), [
        'body',
      ]);
    });

    it('merges an update into the question; refuses a bad one and another kind', async () => {
      const id = await mustCreate({ CUSTOM_EVAL: { question: { ...QUESTION, category: 'numeric' } } });
      const put = (payload: Json) => update(id, payload);
      let res = await put({ CUSTOM_EVAL: { question: { text: 'How polite, 1 to 10?' } } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'ok', response: { action_id: id } });
      let action = await read(id);
      expect(action.config).toEqual({
        question: { ...QUESTION, category: 'numeric', text: 'How polite, 1 to 10?' },
      });
      expect(action.description).toBe('How polite, 1 to 10?');
      res = await put({ CUSTOM_EVAL: { question: { identifier: 'politeness', category: 'likert_scale' } } });
      expect(res.statusCode, res.body).toBe(200);
      action = await read(id);
      expect(action.name).toBe('politeness');
      expect((action.config as { question: Json }).question).toMatchObject({
        identifier: 'politeness',
        category: 'likert_scale',
        expected_result: 'true',
      });
      expectFieldError(await put({ CUSTOM_EVAL: { question: { category: 'vibes' } } }), [
        'body',
        'CUSTOM_EVAL',
        'question',
        'category',
      ]);
      expectFieldError(await put({ CUSTOM_EVAL: { question: { text: '' } } }), [
        'body',
        'CUSTOM_EVAL',
        'question',
        'text',
      ]);
      expectFieldError(await put({ SEND_SMS: { content: 'x' } }), ['body', 'SEND_SMS']);
      expect((await read(id)).name).toBe('politeness');
      // An update of another kind does not take CUSTOM_EVAL.
      const sms = await mustCreate({ SEND_SMS: { name: 'bye', content: 'x' } });
      expectFieldError(await update(sms, { CUSTOM_EVAL: { question: QUESTION } }), ['body', 'CUSTOM_EVAL']);
    });

    it('attaches, detaches and deletes like the other kinds; collects no input variables', async () => {
      const agent = await newAgent();
      const id = await mustCreate({ CUSTOM_EVAL: { question: QUESTION } });
      let res = await attach(agent, [id]);
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { response: Json }).response).toEqual({ model_id: agent, actions: [id] });
      const shown = await readAgent(agent, true);
      expect(shown.actions).toEqual([id]);
      expect(shown.input_variables).toEqual([]);
      res = await detach(agent, [id]);
      expect((res.json() as { response: Json }).response).toEqual({ model_id: agent, actions: [] });
      await attach(agent, [id]);
      expect((await remove(id)).statusCode).toBe(200);
      expectNotFound(await get(id));
      expect((await readAgent(agent, true)).actions).toEqual([]);
    });
  });

  describe('attach, detach and agent reads', () => {
    it('shows attached actions and their input variables only with include_actions=true', async () => {
      const agent = await newAgent();
      const extractor = await mustCreate({ INFORMATION_EXTRACTOR: EXTRACTOR });
      const transfer = await mustCreate({ LIVE_TRANSFER: TRANSFER });
      const custom = await mustCreate({ CUSTOM_ACTION: CUSTOM });
      const yesNo = await mustCreate({
        INFORMATION_EXTRACTOR: { identifier: 'consent', description: 'Consent given', kind: 'yes_no' },
      });
      const choice = await mustCreate({
        INFORMATION_EXTRACTOR: {
          identifier: 'plan',
          description: 'Plan',
          kind: 'single_choice',
          choices: ['a', 'b'],
        },
      });
      const res = await attach(agent, [extractor, transfer, custom, yesNo, choice]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'ok',
        response: { model_id: agent, actions: [extractor, transfer, custom, yesNo, choice] },
      });

      for (const flag of [undefined, false]) {
        const plain = await readAgent(agent, flag);
        expect(plain.actions).toEqual([]);
        expect(plain.input_variables).toEqual([]);
      }
      const full = await readAgent(agent, true);
      expect(full.actions).toEqual([extractor, transfer, custom, yesNo, choice]);
      expect(full.input_variables).toEqual([
        {
          action_id: extractor,
          values: [
            {
              name: 'email',
              type: 'string',
              description: EXTRACTOR.description,
              example: 'ann@example.com',
              required: true,
            },
          ],
          trigger_condition: EXTRACTOR.description,
        },
        {
          action_id: custom,
          values: [
            {
              name: 'order_id',
              type: 'string',
              description: 'The order number',
              example: 'A-1',
              required: true,
            },
          ],
          trigger_condition: CUSTOM.description,
        },
        {
          action_id: yesNo,
          values: [
            { name: 'consent', type: 'boolean', description: 'Consent given', example: '', required: true },
          ],
          trigger_condition: 'Consent given',
        },
        {
          action_id: choice,
          values: [{ name: 'plan', type: 'enum', description: 'Plan', example: '', required: true }],
          trigger_condition: 'Plan',
        },
      ]);

      // The list takes the flag too.
      const list = async (flag: string) => {
        const r = await t.call({ method: 'GET', url: `/v2/assistants/?limit=1000${flag}` });
        const agents = (r.json() as { response: { assistants: Json[] } }).response.assistants;
        return agents.find((a) => a.model_id === agent);
      };
      expect((await list('&include_actions=true'))?.actions).toEqual(full.actions);
      expect((await list('&include_actions=true'))?.input_variables).toEqual(full.input_variables);
      expect((await list(''))?.actions).toEqual([]);

      const off = await detach(agent, [transfer, custom]);
      expect(off.json()).toEqual({
        status: 'ok',
        response: { model_id: agent, actions: [extractor, yesNo, choice] },
      });
      expect((await readAgent(agent, true)).actions).toEqual([extractor, yesNo, choice]);
      // Detaching one not attached is fine; attaching twice keeps one attachment.
      expect((await detach(agent, [transfer])).statusCode).toBe(200);
      expect((await attach(agent, [extractor, extractor])).json()).toEqual({
        status: 'ok',
        response: { model_id: agent, actions: [extractor, yesNo, choice] },
      });
    });

    it('answers 404 for an unknown agent or action, attaching nothing', async () => {
      const agent = await newAgent();
      const mine = await mustCreate({ SEND_SMS: { name: 'a', content: 'b' } });
      const theirs = await mustCreate({ SEND_SMS: { name: 'a', content: 'b' } }, t.other.key);
      const theirAgent = await newAgent(t.other.key);
      expectNotFound(await attach(MISSING_ID, [mine]));
      expectNotFound(await attach(theirAgent, [mine]));
      const d = expectNotFound(await attach(agent, [mine, theirs]));
      expect(d.description).toContain(theirs);
      expectNotFound(await attach(agent, [mine, MISSING_ID]));
      expect((await readAgent(agent, true)).actions).toEqual([]);
      expectNotFound(await detach(agent, [theirs]));
      expectNotFound(await detach(theirAgent, [mine]));
      expectFieldError(await attach(agent, []), ['body', 'actions']);
      expectFieldError(
        await t.call({ method: 'POST', url: '/v2/actions/attach', payload: { actions: [mine] } }),
        ['body', 'model_id'],
      );
    });

    it('shows changes at once to an agent read cached before them', async () => {
      const agent = await newAgent();
      const id = await mustCreate({ INFORMATION_EXTRACTOR: EXTRACTOR });
      // Cache both shapes first.
      expect((await readAgent(agent, true)).actions).toEqual([]);
      expect((await readAgent(agent, false)).actions).toEqual([]);
      await attach(agent, [id]);
      expect((await readAgent(agent, true)).actions).toEqual([id]);
      expect((await readAgent(agent, false)).actions).toEqual([]);
      // Updating an attached action changes its input variables.
      await update(id, { INFORMATION_EXTRACTOR: { description: 'Changed', kind: 'yes_no' } });
      const after = (await readAgent(agent, true)).input_variables as {
        trigger_condition: string;
        values: Json[];
      }[];
      expect(after[0]?.trigger_condition).toBe('Changed');
      expect(after[0]?.values[0]?.type).toBe('boolean');
      await detach(agent, [id]);
      expect((await readAgent(agent, true)).actions).toEqual([]);
      await attach(agent, [id]);
      expect((await readAgent(agent, true)).actions).toEqual([id]);
      // Deleting it detaches it.
      await remove(id);
      const gone = await readAgent(agent, true);
      expect(gone.actions).toEqual([]);
      expect(gone.input_variables).toEqual([]);
    });

    it('forgets the attachments of a deleted agent', async () => {
      const agent = await newAgent();
      const id = await mustCreate({ SEND_SMS: { name: 'a', content: 'b' } });
      await attach(agent, [id]);
      expect((await t.call({ method: 'DELETE', url: `/v2/assistants/${agent}` })).statusCode).toBe(200);
      expect((await remove(id)).statusCode).toBe(200);
    });
  });

  describe('the published attachment features', () => {
    const attachItems = (model_id: string, items: Json[], actions?: string[], key?: string) =>
      t.call({
        method: 'POST',
        url: '/v2/actions/attach',
        payload: { model_id, items, ...(actions ? { actions } : {}) },
        key,
      });
    const detail = async (id: string, query = '') => {
      const res = await t.call({ method: 'GET', url: `/v2/actions/${id}${query}` });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { response: Json & { actions: Json[] } }).response;
    };
    const CUSTOM2 = {
      ...CUSTOM,
      variables_during_the_call: [
        ...CUSTOM.variables_during_the_call,
        { name: 'store', description: 'The store', example: 'Oslo', type: 'string' },
      ],
    };

    it('lists the agents an action is attached to with include_assistants=true', async () => {
      const [a, b] = [await newAgent(), await newAgent()];
      const id = await mustCreate({ CUSTOM_ACTION: CUSTOM2 });
      expect((await attach(a, [id])).statusCode).toBe(200);
      const mapping = [
        { variable_name: 'store', source: 'hardcoded', hardcoded_value: 'Bergen' },
        {
          variable_name: 'order_id',
          source: 'llm',
          llm_config: { description: 'The parcel number', example: null, required: true },
        },
      ];
      const res = await attachItems(b, [
        {
          action_id: id,
          attachment_type: 'before',
          trigger_condition: 'Always',
          input_variables_mapping: mapping,
        },
      ]);
      expect(res.json()).toEqual({ status: 'ok', response: { model_id: b, actions: [id] } });

      // Without the flag the read is as before (no extra fields).
      const plain = await detail(id);
      expect(plain.assistants).toBeUndefined();
      expect(Object.keys(plain.input_variables as Json)).toEqual(['values']);
      for (const query of ['?include_assistants=false', '']) {
        expect((await detail(id, query)).assistants).toBeUndefined();
      }

      const full = await detail(id, '?include_assistants=true');
      expect(full.assistants).toEqual([a, b]);
      expect((full.input_variables as Json).assistants).toEqual([
        { model_id: a, attachment_type: 'during', trigger_condition: null, input_variables_mapping: [] },
        {
          model_id: b,
          attachment_type: 'before',
          trigger_condition: 'Always',
          input_variables_mapping: [
            { variable_name: 'store', source: 'hardcoded', hardcoded_value: 'Bergen', llm_config: null },
            {
              variable_name: 'order_id',
              source: 'llm',
              hardcoded_value: null,
              llm_config: { description: 'The parcel number', example: null, required: true },
            },
          ],
        },
      ]);
      // The published `actions[0]` carries the same.
      const { actions, ...rest } = full;
      expect(actions).toEqual([rest]);

      await detach(a, [id]);
      expect((await detail(id, '?include_assistants=true')).assistants).toEqual([b]);
      expect((await t.call({ method: 'DELETE', url: `/v2/assistants/${b}` })).statusCode).toBe(200);
      const none = await detail(id, '?include_assistants=true');
      expect(none.assistants).toEqual([]);
      expect((none.input_variables as Json).assistants).toEqual([]);
      expectFieldError(await t.call({ method: 'GET', url: `/v2/actions/${id}?include_assistants=maybe` }), [
        'query',
        'include_assistants',
      ]);
    });

    it('attaches items (with actions), keeps their settings and shows them on agent reads', async () => {
      const agent = await newAgent();
      const custom = await mustCreate({ CUSTOM_ACTION: CUSTOM2 });
      const extractor = await mustCreate({ INFORMATION_EXTRACTOR: EXTRACTOR });
      const sms = await mustCreate({ SEND_SMS: { name: 'recap', content: 'Bye' } });
      const res = await attachItems(
        agent,
        [
          {
            action_id: custom,
            trigger_condition: 'When the caller asks where the parcel is',
            input_variables_mapping: [
              { variable_name: 'store', source: 'hardcoded', hardcoded_value: 'Bergen' },
              { variable_name: 'order_id', source: 'llm', llm_config: { description: 'The parcel number' } },
            ],
          },
          { slug: extractor, attachment_type: null, trigger_condition: 'When an email is given' },
          { action_id: sms, attachment_type: 'after' },
        ],
        [extractor],
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(new Set((res.json() as { response: { actions: string[] } }).response.actions)).toEqual(
        new Set([custom, extractor, sms]),
      );
      const read = await readAgent(agent, true);
      const vars = read.input_variables as { action_id: string; trigger_condition: string; values: Json[] }[];
      const of = (id: string) => vars.find((v) => v.action_id === id);
      // The hardcoded variable is not asked for; the llm one reads with its new description.
      expect(of(custom)).toEqual({
        action_id: custom,
        values: [
          {
            name: 'order_id',
            type: 'string',
            description: 'The parcel number',
            example: 'A-1',
            required: true,
          },
        ],
        trigger_condition: 'When the caller asks where the parcel is',
      });
      expect(of(extractor)?.trigger_condition).toBe('When an email is given');

      // null (or absent) leaves a condition unchanged, "" clears it; the type defaults stay.
      await attachItems(agent, [{ action_id: extractor, trigger_condition: null }]);
      let again = (await readAgent(agent, true)).input_variables as typeof vars;
      expect(again.find((v) => v.action_id === extractor)?.trigger_condition).toBe('When an email is given');
      await attachItems(agent, [{ action_id: extractor, trigger_condition: '' }]);
      again = (await readAgent(agent, true)).input_variables as typeof vars;
      expect(again.find((v) => v.action_id === extractor)?.trigger_condition).toBe(EXTRACTOR.description);
      // A plain re-attach changes nothing of an item's settings.
      await attach(agent, [custom]);
      again = (await readAgent(agent, true)).input_variables as typeof vars;
      expect(again.find((v) => v.action_id === custom)?.trigger_condition).toBe(
        'When the caller asks where the parcel is',
      );
      const assistants = (await detail(sms, '?include_assistants=true')).input_variables as {
        assistants: Json[];
      };
      expect(assistants.assistants).toEqual([
        { model_id: agent, attachment_type: 'after', trigger_condition: null, input_variables_mapping: [] },
      ]);
    });

    it('refuses bad items naming the field, attaching nothing', async () => {
      const agent = await newAgent();
      const custom = await mustCreate({ CUSTOM_ACTION: CUSTOM2 });
      const extractor = await mustCreate({ INFORMATION_EXTRACTOR: EXTRACTOR });
      const theirs = await mustCreate({ CUSTOM_ACTION: CUSTOM2 }, t.other.key);
      const cases: [Json[], (string | number)[]][] = [
        [[{ attachment_type: 'during' }], ['body', 'items', 0, 'action_id']],
        [[{ slug: 'book-appointment' }], ['body', 'items', 0, 'slug']],
        [[{ action_id: custom, slug: extractor }], ['body', 'items', 0, 'slug']],
        [
          [{ action_id: custom }, { slug: custom }],
          ['body', 'items', 1, 'slug'],
        ],
        [[{ action_id: extractor, attachment_type: 'before' }], ['body', 'items', 0, 'attachment_type']],
        [[{ action_id: custom, attachment_type: 'after' }], ['body', 'items', 0, 'attachment_type']],
        [[{ action_id: custom, attachment_type: 'sometimes' }], ['body', 'items', 0, 'attachment_type']],
        [[{ action_id: custom, trigger_condition: 3 }], ['body', 'items', 0, 'trigger_condition']],
        [
          [{ action_id: extractor, input_variables_mapping: [{ variable_name: 'email', source: 'llm' }] }],
          ['body', 'items', 0, 'input_variables_mapping'],
        ],
        [
          [{ action_id: custom, input_variables_mapping: [{ variable_name: 'nope', source: 'llm' }] }],
          ['body', 'items', 0, 'input_variables_mapping', 0, 'variable_name'],
        ],
        [
          [
            {
              action_id: custom,
              input_variables_mapping: [
                { variable_name: 'store', source: 'llm' },
                { variable_name: 'store', source: 'llm' },
              ],
            },
          ],
          ['body', 'items', 0, 'input_variables_mapping', 1, 'variable_name'],
        ],
        [
          [{ action_id: custom, input_variables_mapping: [{ variable_name: 'store', source: 'hardcoded' }] }],
          ['body', 'items', 0, 'input_variables_mapping', 0, 'hardcoded_value'],
        ],
        [
          [
            {
              action_id: custom,
              input_variables_mapping: [{ variable_name: 'store', source: 'system_vars' }],
            },
          ],
          ['body', 'items', 0, 'input_variables_mapping', 0, 'source'],
        ],
      ];
      for (const [items, loc] of cases) expectFieldError(await attachItems(agent, items), loc);
      expectFieldError(await attachItems(agent, []), ['body', 'actions']);
      expectFieldError(await attachItems(agent, [], []), ['body', 'actions']);
      // Unknown (or another workspace's) action ids are a 404, as in `actions`.
      expectNotFound(await attachItems(agent, [{ action_id: custom }, { action_id: theirs }]));
      expectNotFound(await attachItems(MISSING_ID, [{ action_id: custom }]));
      expect((await readAgent(agent, true)).actions).toEqual([]);
    });

    it('initializes only a custom action of the workspace, through the safe fetch', async () => {
      const custom = await mustCreate({
        CUSTOM_ACTION: { name: 'local', http_mode: 'GET', url: 'http://127.0.0.1:9/profile' },
      });
      const extractor = await mustCreate({ INFORMATION_EXTRACTOR: EXTRACTOR });
      const theirs = await mustCreate({ CUSTOM_ACTION: CUSTOM }, t.other.key);
      const init = (payload: Json) => t.call({ method: 'POST', url: '/v2/actions/initialize', payload });
      // This API does not allow private addresses: the request is refused, not sent.
      const refused = await init({ action_id: custom, variables: [] });
      expect(refused.statusCode, refused.body).toBe(200);
      expect((refused.json() as { response: Json }).response).toEqual({
        answer: expect.stringContaining('private, loopback and link-local addresses are not allowed'),
        ok: false,
        status: null,
        error: expect.stringContaining('refusing to connect'),
      });
      expectNotFound(await init({ action_id: MISSING_ID }));
      expectNotFound(await init({ action_id: theirs }));
      expectFieldError(await init({ action_id: extractor }), ['body', 'action_id']);
      expectFieldError(await init({ variables: [] }), ['body', 'action_id']);
      expectFieldError(await init({ action_id: custom, variables: [{ key: 'a', value: { b: 1 } }] }), [
        'body',
        'variables',
      ]);
    });
  });
});
