import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { expectFieldError } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Calls and campaigns as existing clients of the vendor's API call them: the vendor's own
// integration sends custom variables as a plain object, checks a key with a bare `GET /calls`,
// reads `error_message` as a string, and pauses batches with a JSON content type and no body.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FROM = '+14155550100';
const JSON_TYPE = { 'content-type': 'application/json' };
const person = (n: number) => `+1415557${String(1000 + n).padStart(4, '0')}`;

forEachStore('compat: calls and batches', (target) => {
  let t: TestApi;
  let agent: string;

  beforeAll(async () => {
    t = await createTestApi(target, { llm: createBuiltinLLM() });
    agent = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({
          agent: {
            prompt: 'You call {name} about solar in {city}.',
            greeting_message: 'Hi {name}, calling about {city}.',
          },
        }),
      )
    ).model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [FROM] });
  });
  afterAll(() => t.close());

  function call(method: string, url: string, payload?: Json) {
    return t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  }
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  async function record(id: string): Promise<Json> {
    await t.engine.calls.idle();
    return (await ok('GET', `/v2/calls/${id}`)).calls[0] as Json;
  }

  describe('POST /v2/calls', () => {
    it('takes custom_variables as a plain object (the vendor integration) and as items (the spec)', async () => {
      const placed = await call('POST', '/v2/calls', {
        model_id: agent,
        phone: person(1),
        name: 'Ann',
        custom_variables: { city: 'Oslo', panels: 12, owner: true },
      });
      expect(placed.statusCode, placed.body).toBe(200);
      const byObject = await record(placed.json().response.call_id as string);
      expect(byObject.prompt_variables).toMatchObject({ city: 'Oslo', panels: 12, owner: true });
      expect(byObject.transcript).toMatch(/^bot: Hi Ann, calling about Oslo\./);

      const byItems = await record(
        (
          await ok('POST', '/v2/calls', {
            model_id: agent,
            phone: person(2),
            name: 'Bo',
            custom_variables: [{ key: 'city', value: 'Bergen' }],
          })
        ).call_id as string,
      );
      expect(byItems.transcript).toMatch(/^bot: Hi Bo, calling about Bergen\./);
    });

    it('refuses garbage variables, naming the field', async () => {
      const body = (custom_variables: unknown) => ({
        model_id: agent,
        phone: person(3),
        name: 'A',
        custom_variables,
      });
      expectFieldError(await call('POST', '/v2/calls', body({ city: { name: 'Oslo' } })), [
        'body',
        'custom_variables',
        'city',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ list: [1, 2] })), [
        'body',
        'custom_variables',
        'list',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body(null)), ['body', 'custom_variables']);
      expectFieldError(await call('POST', '/v2/calls', body(42)), ['body', 'custom_variables']);
    });
  });

  describe('GET /v2/calls and GET /v2/calls/{id}', () => {
    it('a bare GET /v2/calls (the key check of the vendor integration) answers 200', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/calls', headers: JSON_TYPE, payload: '' });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json().response as Json;
      expect(page.pagination).toMatchObject({ limit: 20, offset: 0 });
      expect(page.pagination.total_records).toBe(page.calls.length);
    });

    it('records carry the published fields with their published types', async () => {
      const done = await record(
        // 4444 answers and hangs up at once: the callee ends the call.
        (await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155554444', name: 'Cy' }))
          .call_id as string,
      );
      const failed = await record(
        (await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155552222', name: 'Cy' }))
          .call_id as string,
      );
      for (const r of [done, failed]) {
        for (const field of [
          'call_id',
          'model_id',
          'phone_number_from',
          'phone_number_to',
          'name',
          'transcript',
        ])
          expect(typeof r[field], field).toBe('string');
        expect(typeof r.error_message).toBe('string');
        expect(typeof r.duration).toBe('number');
        expect(typeof r.timezone).toBe('string');
        expect(typeof r.campaign_type).toBe('string');
        expect(Array.isArray(r.agents_used)).toBe(true);
        expect(typeof r.telephony_start).toBe('string');
        expect(typeof r.telephony_end).toBe('string');
        expect(Number.isInteger(r.telephony_duration)).toBe(true);
      }
      expect(done.error_message).toBe('');
      expect(done).toMatchObject({
        status: 'completed',
        telephony_hangup: 'callee',
        telephony_disconnect_reason: 'callee_hangup',
        agents_used: [agent],
      });
      expect(failed.error_message).toMatch(/carrier/);
      expect(failed).toMatchObject({
        status: 'failed',
        telephony_hangup: null,
        telephony_disconnect_reason: 'error',
      });

      const list = await ok('GET', `/v2/calls?model_id=${agent}&limit=100`);
      const item = (list.calls as Json[]).find((c) => c.call_id === done.call_id)!;
      expect(item).toMatchObject({
        call_status: 'completed',
        lead_phone_number: '+14155554444',
        lead_name: 'Cy',
        agent_phone_number: FROM,
        error_message: '',
        labels: [],
      });
      expect(item.judge_results).toEqual(done.analysis);
    });
  });

  describe('batches', () => {
    it('takes task variables as items or an object; pause, resume and cancel with an empty JSON body', async () => {
      const batch = await ok('POST', '/v2/calls/batch', {
        model_id: agent,
        from_phone_number: FROM,
        trigger_timestamp: Date.now() + 86_400_000,
        tasks: [
          { to_phone_number: person(10), lead_name: 'A', custom_variables: [{ key: 'city', value: 'Oslo' }] },
          { to_phone_number: person(11), lead_name: 'B', custom_variables: { city: 'Bergen' } },
        ],
      });
      const id = batch.batch_call_id as string;
      const tasks = (await ok('GET', `/v2/calls/batch/${id}/tasks`)).tasks as Json[];
      expect(tasks.map((x) => x.custom_variables)).toEqual([{ city: 'Oslo' }, { city: 'Bergen' }]);
      expect(tasks.map((x) => x.error_message)).toEqual(['', '']);

      for (const [action, status] of [
        ['pause', 'paused'],
        ['resume', 'scheduled'],
        ['cancel', 'canceled'],
      ] as const) {
        const res = await t.call({
          method: 'POST',
          url: `/v2/calls/batch/${id}/${action}`,
          headers: JSON_TYPE,
          payload: '',
        });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().response.status).toBe(status);
      }
      expectFieldError(
        await call('POST', '/v2/calls/batch', {
          model_id: agent,
          from_phone_number: FROM,
          tasks: [{ to_phone_number: person(12), custom_variables: { nested: { a: 1 } } }],
        }),
        ['body', 'tasks', 0, 'custom_variables', 'nested'],
      );
    });
  });

  describe('outbound chats', () => {
    it("takes custom_variables as the spec's items too", async () => {
      const chatAgent = (
        await ok(
          'POST',
          '/v2/assistants',
          agentBody({ type: 'chat', agent: { prompt: 'p', greeting_message: 'Hi {name}!' } }),
        )
      ).model_id as string;
      await ok('PUT', `/v2/assistants/${chatAgent}/phone_numbers`, { phone_numbers: [FROM] });
      const started = await ok('POST', '/v2/chat/outbound', {
        agent_id: chatAgent,
        channel: 'sms',
        to_number: person(20),
        from_number: FROM,
        custom_variables: [{ key: 'name', value: 'Dee' }],
      });
      const chat = await ok('GET', `/v2/chat/${started.conversation_id as string}`);
      expect(chat.metadata).toEqual({ name: 'Dee' });
      expect(chat.initial_message.agent_message).toBe('Hi Dee!');
    });
  });
});
