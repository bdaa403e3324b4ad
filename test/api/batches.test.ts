import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { expectErrorBody, expectFieldError, expectNotFound } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Batch calls through the API on the sim at speed 0: creation and appends (all or none, the
// limits at and over their edges), every row of the spec's state table, listing recipients in
// order with their outcomes, and whole campaigns dialed to completion.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FROM = '+14155550100';
const LIMIT = 30; // recipients per batch in this test's store (the product's is 1,000,000)
const lead = (n: number) => `+1415556${String(1000 + n).padStart(4, '0')}`;

forEachStore('batch calls', (target) => {
  let t: TestApi;
  let agent: string;

  beforeAll(async () => {
    t = await createTestApi(target, { llm: createBuiltinLLM(), limits: { maxTasksPerBatch: LIMIT } });
    // Rounds run only when a test asks (dialer.round()), so what is dialed when is deterministic;
    // the loop itself (wake-ups, slot refills) is tested in test/api/dialer.test.ts.
    await t.engine.dialer.stop();
    agent = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'p', greeting_message: 'Hi {name}!' } }),
      )
    ).model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [FROM] });
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, payload?: Json) =>
    t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  const tasks = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ to_phone_number: lead(from + i), lead_name: `Lead ${from + i}` }));
  const create = (extra: Json = {}) =>
    call('POST', '/v2/calls/batch', { model_id: agent, from_phone_number: FROM, tasks: tasks(2), ...extra });
  /** A batch that stays put: triggered far in the future, so nothing is dialed. */
  const parked = async (n = 2, extra: Json = {}) =>
    (await ok('POST', '/v2/calls/batch', {
      model_id: agent,
      from_phone_number: FROM,
      tasks: tasks(n),
      trigger_timestamp: Date.now() + 86_400_000,
      ...extra,
    })) as Json;
  const settled = async (id: string) => {
    for (let i = 0; i < 200; i++) {
      await t.engine.calls.idle();
      await t.engine.dialer.round();
      await t.engine.calls.idle();
      const b = await ok('GET', `/v2/calls/batch/${id}`);
      if (b.status === 'completed' || b.status === 'canceled') return b;
    }
    throw new Error('the batch never finished');
  };

  describe('create and append', () => {
    it('creates a batch with its record and counters', async () => {
      const b = await parked(3, { name: 'Spring promo', reserved_concurrency: 2 });
      expect(b).toMatchObject({
        name: 'Spring promo',
        status: 'scheduled',
        model_id: agent,
        from_phone_number: FROM,
        reserved_concurrency: 2,
        call_time_window: null,
        total_task_count: 3,
        pending_count: 3,
        dispatched_count: 0,
        failed_count: 0,
        canceled_count: 0,
      });
      expect(b.batch_call_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(b.expires_at) - Date.parse(b.created_at)).toBe(7 * 86_400_000);
    });

    it('appends in order; creation fields of an append are ignored', async () => {
      const b = await parked(2);
      const appended = await ok('POST', '/v2/calls/batch', {
        batch_call_id: b.batch_call_id,
        model_id: 'ignored',
        reserved_concurrency: 999,
        tasks: tasks(3, 2),
      });
      expect(appended).toMatchObject({ total_task_count: 5, pending_count: 5, reserved_concurrency: 0 });
      const page = await ok('GET', `/v2/calls/batch/${b.batch_call_id}/tasks?limit=10`);
      expect(page.pagination).toEqual({ total_records: 5, limit: 10, offset: 0 });
      expect(page.tasks.map((x: Json) => x.to_phone_number)).toEqual([0, 1, 2, 3, 4].map(lead));
      expect(page.tasks[0]).toMatchObject({
        status: 'queued',
        call_id: null,
        call_status: null,
        lead_name: 'Lead 0',
      });
      const second = await ok('GET', `/v2/calls/batch/${b.batch_call_id}/tasks?limit=2&offset=3`);
      expect(second.tasks.map((x: Json) => x.to_phone_number)).toEqual([lead(3), lead(4)]);
    });

    it('holds at most the batch limit in total: over it is a 400 that stores nothing', async () => {
      const b = await parked(LIMIT - 2);
      const over = await call('POST', '/v2/calls/batch', { batch_call_id: b.batch_call_id, tasks: tasks(3) });
      expectFieldError(over, ['body', 'tasks']);
      expect((await ok('GET', `/v2/calls/batch/${b.batch_call_id}`)).total_task_count).toBe(LIMIT - 2);
      const exact = await ok('POST', '/v2/calls/batch', { batch_call_id: b.batch_call_id, tasks: tasks(2) });
      expect(exact.total_task_count).toBe(LIMIT);
      expectFieldError(
        await call('POST', '/v2/calls/batch', { batch_call_id: b.batch_call_id, tasks: tasks(1) }),
        ['body', 'tasks'],
      );
    });

    it('takes 1 to 10,000 recipients per request', async () => {
      expectFieldError(await create({ tasks: [] }), ['body', 'tasks']);
      const many = Array.from({ length: 10_001 }, () => ({ to_phone_number: FROM }));
      expectFieldError(await create({ tasks: many }), ['body', 'tasks']);
    });

    it('refuses bad input naming the field', async () => {
      expectFieldError(await create({ tasks: [...tasks(3), { lead_name: 'no number' }] }), [
        'body',
        'tasks',
        3,
        'to_phone_number',
      ]);
      expectFieldError(await create({ tasks: [{ to_phone_number: 12 }] }), [
        'body',
        'tasks',
        0,
        'to_phone_number',
      ]);
      expectFieldError(await create({ model_id: undefined }), ['body', 'model_id']);
      expectFieldError(await create({ from_phone_number: undefined }), ['body', 'from_phone_number']);
      expectFieldError(await create({ from_phone_number: '+14155550199' }), ['body', 'from_phone_number']);
      expectFieldError(await create({ reserved_concurrency: -1 }), ['body', 'reserved_concurrency']);
      expectFieldError(await create({ reserved_concurrency: 10 }), ['body', 'reserved_concurrency']);
      expectFieldError(await create({ batch_call_id: 'not-a-uuid' }), ['body', 'batch_call_id']);
      const window = (w: Json) => create({ call_time_window: { enable: true, weekly_hours: [w] } });
      expectFieldError(await window({ weekday: 'funday', interval: [{ from: '09:00', to: '17:00' }] }), [
        'body',
        'call_time_window',
        'weekly_hours',
        0,
        'weekday',
      ]);
      const fromAfterTo = await window({ weekday: 'monday', interval: [{ from: '18:00', to: '09:00' }] });
      expect(expectErrorBody(fromAfterTo, 400, 'validation').description).toContain('call_time_window');
      expectFieldError(
        await create({ call_time_window: { enable: true, timezone: 'Mars/Base', weekly_hours: [] } }),
        ['body', 'call_time_window', 'timezone'],
      );
      const unknownAgent = expectErrorBody(await create({ model_id: randomUUID() }), 400, 'not_found');
      expect(unknownAgent.description).toContain('model_id');
      expectNotFound(await call('POST', '/v2/calls/batch', { batch_call_id: randomUUID(), tasks: tasks(1) }));
    });
  });

  describe('the state table', () => {
    const post = (id: string, action: string) => call('POST', `/v2/calls/batch/${id}/${action}`);

    it('pause from scheduled; resume back to scheduled; a second pause or resume is a 400', async () => {
      const b = await parked();
      const id = b.batch_call_id as string;
      expect((await post(id, 'pause')).json().response.status).toBe('paused');
      expectErrorBody(await post(id, 'pause'), 400, 'conflict');
      expect((await post(id, 'resume')).json().response.status).toBe('scheduled');
      expectErrorBody(await post(id, 'resume'), 400, 'conflict');
    });

    it('cancel cancels undialed recipients; a canceled batch cannot be resumed, paused or appended', async () => {
      const b = await parked(4);
      const id = b.batch_call_id as string;
      const canceled = (await post(id, 'cancel')).json().response;
      expect(canceled).toMatchObject({ status: 'canceled', pending_count: 0, canceled_count: 4 });
      expect((await post(id, 'cancel')).json().response.status).toBe('canceled');
      expectErrorBody(await post(id, 'resume'), 400, 'conflict');
      expectErrorBody(await post(id, 'pause'), 400, 'conflict');
      expectErrorBody(
        await call('POST', '/v2/calls/batch', { batch_call_id: id, tasks: tasks(1) }),
        400,
        'conflict',
      );
      const page = await ok('GET', `/v2/calls/batch/${id}/tasks?status=canceled`);
      expect(page.pagination.total_records).toBe(4);
    });

    it('a paused batch is not dialed; resumed, it is dialed to completion', async () => {
      const b = await ok('POST', '/v2/calls/batch', {
        model_id: agent,
        from_phone_number: FROM,
        tasks: tasks(3, 100),
      });
      const id = b.batch_call_id as string;
      // Created and paused before any round ran: nothing dialed.
      expect((await post(id, 'pause')).statusCode).toBe(200);
      await t.engine.dialer.round();
      expect(await ok('GET', `/v2/calls/batch/${id}`)).toMatchObject({
        status: 'paused',
        pending_count: 3,
        dispatched_count: 0,
      });
      await post(id, 'resume');
      const done = await settled(id);
      expect(done).toMatchObject({ status: 'completed', pending_count: 0, dispatched_count: 3 });
    });

    it('a completed batch: pause and resume are 400s, cancel leaves it as is, append is a 400', async () => {
      const b = await ok('POST', '/v2/calls/batch', {
        model_id: agent,
        from_phone_number: FROM,
        tasks: tasks(1, 200),
      });
      const id = b.batch_call_id as string;
      await settled(id);
      expectErrorBody(await post(id, 'pause'), 400, 'conflict');
      expectErrorBody(await post(id, 'resume'), 400, 'conflict');
      expect((await post(id, 'cancel')).json().response.status).toBe('completed');
      expectErrorBody(
        await call('POST', '/v2/calls/batch', { batch_call_id: id, tasks: tasks(1) }),
        400,
        'conflict',
      );
    });

    it('unknown or another workspace’s batches are 404s on every operation', async () => {
      const b = await parked();
      const theirs = b.batch_call_id as string;
      for (const id of [randomUUID(), 'not-a-uuid']) {
        expectNotFound(await call('GET', `/v2/calls/batch/${id}`));
        expectNotFound(await call('GET', `/v2/calls/batch/${id}/tasks`));
        for (const a of ['pause', 'resume', 'cancel']) expectNotFound(await post(id, a));
      }
      const other = await t.call({ method: 'GET', url: `/v2/calls/batch/${theirs}`, key: t.other.key });
      expectNotFound(other);
      // Its recipients are not shown either, with or without a status filter.
      for (const query of ['', '?status=queued']) {
        const tasks = await t.call({
          method: 'GET',
          url: `/v2/calls/batch/${theirs}/tasks${query}`,
          key: t.other.key,
        });
        expectNotFound(tasks);
        expect(tasks.body).not.toContain('to_phone_number');
      }
    });
  });

  describe('dialing', () => {
    it('dials every recipient once, with their variables; undialable numbers and unknown agents fail before dialing', async () => {
      const b = await ok('POST', '/v2/calls/batch', {
        model_id: agent,
        from_phone_number: FROM,
        tasks: [
          { to_phone_number: lead(300), lead_name: 'Ann', custom_variables: { plan: 'gold' } },
          { to_phone_number: '12345', lead_name: 'Bad number' },
          { to_phone_number: lead(301), override_model_id: randomUUID() },
          { to_phone_number: '+14155551111', lead_name: 'Busy' },
        ],
      });
      const id = b.batch_call_id as string;
      const done = await settled(id);
      expect(done).toMatchObject({
        status: 'completed',
        total_task_count: 4,
        dispatched_count: 2,
        failed_count: 2,
        pending_count: 0,
      });
      const list = (await ok('GET', `/v2/calls/batch/${id}/tasks`)).tasks as Json[];
      expect(list.map((x) => [x.status, x.call_status])).toEqual([
        ['dispatched', 'completed'],
        ['failed', null],
        ['failed', null],
        ['dispatched', 'busy'],
      ]);
      expect(list[0]!.error_message).toBe('');
      expect(list[1]!.error_message).toMatch(/not a dialable number/);
      expect(list[2]!.error_message).toMatch(/override_model_id/);
      const first = (await ok('GET', `/v2/calls/${list[0]!.call_id}`)).calls[0] as Json;
      expect(first).toMatchObject({ batch_call_id: id, name: 'Ann', phone_number_to: lead(300) });
      expect(first.prompt_variables).toMatchObject({ plan: 'gold' });
      expect(first.transcript).toMatch(/^bot: Hi Ann!/);
      const byBatch = await ok('GET', `/v2/calls?model_id=${agent}&batch_call_id=${id}`);
      expect(byBatch.calls).toHaveLength(2);
      const failed = await ok('GET', `/v2/calls/batch/${id}/tasks?status=failed`);
      expect(failed.tasks.map((x: Json) => x.to_phone_number)).toEqual(['12345', lead(301)]);
      const pending = await ok('GET', `/v2/calls/batch/${id}/tasks?status=pending`);
      expect(pending.tasks).toEqual([]);
    });

    it('does not dial before trigger_timestamp', async () => {
      const b = await parked(2);
      await t.engine.dialer.round();
      expect(await ok('GET', `/v2/calls/batch/${b.batch_call_id}`)).toMatchObject({
        status: 'scheduled',
        dispatched_count: 0,
      });
    });

    it('lists batches newest first and checks its paging', async () => {
      const list = await ok('GET', '/v2/calls/batch?limit=2');
      expect(list.batch_calls).toHaveLength(2);
      expect(Date.parse(list.batch_calls[0].created_at)).toBeGreaterThanOrEqual(
        Date.parse(list.batch_calls[1].created_at),
      );
      expect(list.pagination.total_records).toBeGreaterThan(2);
      expectFieldError(await call('GET', '/v2/calls/batch?limit=101'), ['query', 'limit']);
      expectFieldError(await call('GET', '/v2/calls/batch?limit=0'), ['query', 'limit']);
      expectFieldError(await call('GET', '/v2/calls/batch?offset=-1'), ['query', 'offset']);
      const b = await parked(1);
      expectFieldError(await call('GET', `/v2/calls/batch/${b.batch_call_id}/tasks?status=done`), [
        'query',
        'status',
      ]);
      expectFieldError(await call('GET', `/v2/calls/batch/${b.batch_call_id}/tasks?limit=101`), [
        'query',
        'limit',
      ]);
    });
  });
});
