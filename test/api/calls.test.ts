import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisSchema } from '../../src/conversation/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { Value } from '@sinclair/typebox/value';
import { expectErrorBody, expectFieldError, expectNotFound } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver/index.ts';

// Calls through the API on the sim carrier at speed 0 (no waiting), with the builtin model on
// both ends: every test number's outcome, the record, the list filters, bad input, and the
// post-call webhook delivered to a real receiver that verifies signatures.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FROM = '+14155550100';
const person = (n: number) => `+1415555${String(1000 + n).padStart(4, '0')}`;

forEachStore('calls', (target) => {
  let t: TestApi;
  let receiver: WebhookReceiver;
  let agent: string;
  let bare: string;

  beforeAll(async () => {
    t = await createTestApi(target, { llm: createBuiltinLLM(), allowPrivateNetwork: true });
    const secret = (await ok('GET', '/v2/webhook_secret')).webhook_secret as string;
    receiver = await startWebhookReceiver({ secret });
    agent = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({
          name: 'Solar',
          external_webhook_url: `${receiver.url}/hooks`,
          agent: {
            prompt: 'You are Sam from SunCo. Ask if they own their home. Ask what time works best for them.',
            greeting_message: 'Hi {name}, this is Sam from SunCo.',
            timezone: 'America/New_York',
          },
        }),
      )
    ).model_id as string;
    bare = (await ok('POST', '/v2/assistants', agentBody({ name: 'No number' }))).model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [FROM] });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  function call(method: string, url: string, payload?: Json, key?: string) {
    return t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}), ...(key ? { key } : {}) });
  }
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  async function place(phone: string, extra: Json = {}): Promise<string> {
    const res = await call('POST', '/v2/calls', { model_id: agent, phone, name: 'Ann Lee', ...extra });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Json;
    expect(Object.keys(body).sort()).toEqual(['eta', 'response', 'status']);
    expect(body.response.answer).toBe('ok');
    expect(body.eta).toBe(0);
    return body.response.call_id as string;
  }
  async function ended(id: string): Promise<Json> {
    await t.engine.calls.idle();
    const page = await ok('GET', `/v2/calls/${id}`);
    expect(page.pagination).toEqual({ total_records: 1, limit: 1, offset: 0 });
    return page.calls[0] as Json;
  }

  describe('each test number end to end', () => {
    it.each([
      ['0000', 'no-answer', 'undefined'],
      ['1111', 'busy', 'undefined'],
      ['2222', 'failed', 'undefined'],
      ['3333', 'hangup_on_voicemail', 'voicemail'],
      ['4444', 'completed', 'human_pick_up_cut_off'],
    ])('%s ends %s with reason %s', async (digits, status, reason) => {
      const id = await place(`+1415555${digits}`);
      const record = await ended(id);
      expect(record).toMatchObject({ call_id: id, model_id: agent, status, end_call_reason: reason });
      expect(record.type_of_call).toBe('outbound');
      if (status === 'failed') expect(record.error_message).toMatch(/carrier/);
      if (digits === '3333') expect(record.transcript).toMatch(/^human: .*leave a message.*\[beep\]$/);
    });

    it('a person converses with the agent and says goodbye; the record has it all', async () => {
      const id = await place(person(1), {
        custom_variables: [{ key: 'plan', value: 'gold' }],
        lead_email: 'ann@example.com',
        metadata: { external_id: 'crm-42' },
      });
      const r = await ended(id);
      expect(r.status).toBe('completed');
      expect(['human_goodbye', 'agent_goodbye']).toContain(r.end_call_reason);
      const lines = (r.transcript as string).split('\n');
      expect(lines[0]).toBe('bot: Hi Ann Lee, this is Sam from SunCo.');
      expect(lines.every((l) => /^(bot|human): /.test(l))).toBe(true);
      expect(lines.filter((l) => l.startsWith('human: ')).length).toBeGreaterThan(1);
      expect(r).toMatchObject({
        phone_number_from: FROM,
        phone_number_to: person(1),
        name: 'Ann Lee',
        lead_email: 'ann@example.com',
        timezone: 'America/New_York',
        metadata: { external_id: 'crm-42' },
        batch_call_id: null,
        executed_actions: {},
        action_execution_timeline: [],
        collected_variables: null,
      });
      expect(r.prompt_variables).toMatchObject({ plan: 'gold', name: 'Ann Lee' });
      expect(r.start_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d-0[45]:00$/);
      expect(Value.Check(AnalysisSchema, r.analysis)).toBe(true);
      expect(r.analysis.answered_by_human).toBe(true);
      expect(r.quality).toMatchObject({ mode: 'text' });
      expect(r.quality.turns).toBeGreaterThan(0);
    });

    it('leaves the voicemail message when the agent has one', async () => {
      const vm = (
        await ok(
          'POST',
          '/v2/assistants',
          agentBody({
            agent: { prompt: 'p', greeting_message_mode: 'human' },
            voicemail_message: {
              enabled: true,
              mode: 'exact_message',
              exact_message: 'Please call us back.',
            },
          }),
        )
      ).model_id as string;
      await ok('PUT', `/v2/assistants/${vm}/phone_numbers`, { phone_numbers: [FROM] });
      const res = await call('POST', '/v2/calls', { model_id: vm, phone: '+14155553333', name: 'Bo' });
      const r = await ended(res.json().response.call_id as string);
      expect(r).toMatchObject({ status: 'left_voicemail', end_call_reason: 'voicemail_message_left' });
      expect((r.transcript as string).split('\n').at(-1)).toBe('bot: Please call us back.');
    });
  });

  describe('the post-call webhook', () => {
    it('is delivered signed for every final status, with the Events payload', async () => {
      const before = receiver.received.length;
      const id = await place(person(2));
      const busy = await place('+14155551111');
      await t.engine.calls.idle();
      await t.engine.webhooks.drain();
      const got = receiver.received.slice(before);
      const bodies = got.map((w) => JSON.parse(w.body) as Json);
      expect(got.every((w) => w.verified)).toBe(true);
      const mine = bodies.find((b) => b.call.call_id === id)!;
      expect(Object.keys(mine).sort()).toEqual(
        [
          'analysis',
          'call',
          'collected_variables',
          'error_message',
          'executed_actions',
          'lead',
          'metadata',
          'status',
        ].sort(),
      );
      expect(mine.lead).toEqual({
        name: 'Ann Lee',
        phone_number: person(2),
        prompt_variables: expect.any(Object),
      });
      expect(mine.call).toMatchObject({
        status: 'completed',
        model_id: agent,
        call_id: id,
        timezone: 'America/New_York',
      });
      expect(mine.call.transcript).toMatch(/^bot: /);
      expect(bodies.find((b) => b.call.call_id === busy)).toMatchObject({
        status: 'busy',
        call: { end_call_reason: 'undefined' },
      });
    });

    it('the request url overrides the agent url; the timeline is included only when the workspace says so', async () => {
      await ok('PUT', '/v2/workspace', { include_timeline_in_webhook: true });
      const before = receiver.received.length;
      await place(person(3), { external_webhook_url: `${receiver.url}/override` });
      await t.engine.calls.idle();
      await t.engine.webhooks.drain();
      const got = receiver.received.slice(before);
      expect(got.map((w) => w.path)).toEqual(['/override']);
      expect(JSON.parse(got[0]!.body)).toHaveProperty('action_execution_timeline');
      await ok('PUT', '/v2/workspace', { include_timeline_in_webhook: false });
    });
  });

  describe('listing', () => {
    it('lists newest first with call_status and lead_phone_number, and filters', async () => {
      const a = await place(person(10));
      const b = await place('+14155551111');
      await t.engine.calls.idle();
      const all = await ok('GET', `/v2/calls?model_id=${agent}&limit=2`);
      expect(all.pagination.limit).toBe(2);
      expect(all.pagination.total_records).toBeGreaterThanOrEqual(2);
      expect(all.calls.map((c: Json) => c.call_id)).toEqual([b, a]);
      expect(all.calls[0]).toMatchObject({ call_status: 'busy', lead_phone_number: '+14155551111' });
      expect(all.calls[0]).not.toHaveProperty('status');

      const byPhone = await ok(
        'GET',
        `/v2/calls?model_id=${agent}&lead_phone_number=${encodeURIComponent(person(10))}`,
      );
      expect(byPhone.calls.map((c: Json) => c.call_id)).toEqual([a]);
      const busy = await ok('GET', `/v2/calls?model_id=${agent}&call_status=busy`);
      expect(busy.calls.every((c: Json) => c.call_status === 'busy')).toBe(true);
      const long = await ok('GET', `/v2/calls?model_id=${agent}&duration_min=1000000`);
      expect(long.calls).toEqual([]);
      const future = await ok('GET', `/v2/calls?model_id=${agent}&from_date=${Date.now() + 3_600_000}`);
      expect(future.calls).toEqual([]);
      const none = await ok('GET', `/v2/calls?model_id=${agent}&batch_call_id=${randomUUID()}`);
      expect(none).toEqual({ pagination: { total_records: 0, limit: 20, offset: 0 }, calls: [] });
    });

    it('refuses bad filters naming the parameter', async () => {
      const bad = (q: string) => call('GET', `/v2/calls?model_id=${agent}&${q}`);
      expectFieldError(await bad('limit=0'), ['query', 'limit']);
      expectFieldError(await bad('offset=-1'), ['query', 'offset']);
      expectFieldError(await bad('call_status=done'), ['query', 'call_status']);
      expectFieldError(await bad('from_date=yesterday'), ['query', 'from_date']);
      expectFieldError(await bad('lead_phone_number=abc'), ['query', 'lead_phone_number']);
      expectFieldError(await bad('duration_min=10&duration_max=5'), ['query', 'duration_max']);
      expectNotFound(await call('GET', `/v2/calls?model_id=${randomUUID()}`), 400);
      expectFieldError(await call('GET', '/v2/calls?limit=0'), ['query', 'limit']);
    });

    it("without model_id, lists the workspace's calls of every agent with the same filters", async () => {
      const second = (await ok('POST', '/v2/assistants', agentBody({ phone_number: FROM })))
        .model_id as string;
      const mine = await place(person(30));
      const theirs = await place(person(31), { model_id: second });
      await t.engine.calls.idle();
      const all = await ok('GET', '/v2/calls?limit=1000');
      const ids = all.calls.map((c: Json) => c.call_id);
      expect(ids.indexOf(theirs)).toBeLessThan(ids.indexOf(mine));
      expect(ids.indexOf(mine)).toBeGreaterThanOrEqual(0);
      expect(all.pagination.total_records).toBe(ids.length);
      const byAgent = await ok('GET', `/v2/calls?model_id=${agent}&limit=1000`);
      expect(all.pagination.total_records).toBeGreaterThan(byAgent.pagination.total_records);
      const agents = new Set(all.calls.map((c: Json) => c.model_id));
      expect(agents.has(agent) && agents.has(second)).toBe(true);
      const filtered = await ok('GET', `/v2/calls?lead_phone_number=${encodeURIComponent(person(31))}`);
      expect(filtered.calls.map((c: Json) => c.call_id)).toEqual([theirs]);
      expect(filtered.calls[0]).toMatchObject({ model_id: second, call_status: 'completed' });
      const paged = await ok('GET', '/v2/calls?limit=1&offset=1');
      expect(paged.calls.map((c: Json) => c.call_id)).toEqual([ids[1]]);
      // Another workspace sees none of them.
      const other = await call('GET', '/v2/calls', undefined, t.other.key);
      expect(other.json().response.calls).toEqual([]);
    });
  });

  describe('bad input', () => {
    const body = (extra: Json = {}) => ({ model_id: agent, phone: person(20), name: 'Ann', ...extra });

    it('names the field', async () => {
      expectFieldError(await call('POST', '/v2/calls', body({ phone: '12' })), ['body', 'phone']);
      expectFieldError(await call('POST', '/v2/calls', body({ name: undefined })), ['body', 'name']);
      expectFieldError(await call('POST', '/v2/calls', body({ from_phone_number: '+14155550199' })), [
        'body',
        'from_phone_number',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ model_id: bare })), [
        'body',
        'from_phone_number',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ lead_timezone: 'Mars/Base' })), [
        'body',
        'lead_timezone',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ lead_email: 'nope' })), ['body', 'lead_email']);
      expectFieldError(await call('POST', '/v2/calls', body({ external_webhook_url: 'ftp://x' })), [
        'body',
        'external_webhook_url',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ custom_variables: [{ key: 'a' }] })), [
        'body',
        'custom_variables',
        0,
        'value',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ custom_variables: { a: { b: 1 } } })), [
        'body',
        'custom_variables',
        'a',
      ]);
      expectFieldError(await call('POST', '/v2/calls', body({ custom_variables: 'city=Oslo' })), [
        'body',
        'custom_variables',
      ]);
      const unknown = expectErrorBody(
        await call('POST', '/v2/calls', body({ model_id: randomUUID() })),
        400,
        'not_found',
      );
      expect(unknown.description).toContain('model_id');
    });

    it('a call is invisible to another workspace; a bad id is a 400, an unknown one a 404', async () => {
      const id = await place(person(21));
      await t.engine.calls.idle();
      expectNotFound(await call('GET', `/v2/calls/${id}`, undefined, t.other.key));
      expectNotFound(await call('GET', `/v2/calls/${randomUUID()}`));
      expectFieldError(await call('GET', '/v2/calls/not-a-uuid'), ['params', 'call_id']);
    });
  });

  it('meters minutes_used per workspace', async () => {
    const before = (await ok('GET', '/v2/workspace')).minutes_used as number;
    const seconds = (await ok('GET', `/v2/calls?model_id=${agent}&limit=1000`)).calls.reduce(
      (sum: number, c: Json) => sum + (c.duration as number),
      0,
    );
    expect(before).toBeCloseTo(Math.round((seconds / 60) * 100) / 100, 1);
  });
});
