import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import type { NewWebhookLog } from '../../src/store/index.ts';
import { expectFieldError, expectNotFound, ISO, MISSING_ID, type Json, type Loc } from '../assertions.ts';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { startWebhookReceiver } from '../webhook-receiver/index.ts';

// Webhook logs (WIRE.md section 9) through the HTTP layer, once per dialect: a real delivery to a
// real receiver shows up in GET /v2/logs; filters, paging, errors and tenancy; secret rotation.

const HOUR = 3_600_000;

forEachStore('webhook logs API', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let t0: number;

  beforeAll(async () => {
    clock = createManualClock(Date.now());
    t0 = clock.now();
    t = await createTestApi(target, { clock, allowPrivateNetwork: true });
  });
  afterAll(() => t.close());

  const list = (query = '', key?: string | null) => t.call({ method: 'GET', url: `/v2/logs${query}`, key });
  const get = (id: string, key?: string | null) => t.call({ method: 'GET', url: `/v2/logs/${id}`, key });
  const log = (over: Partial<NewWebhookLog>): NewWebhookLog => ({
    workspaceId: t.ws.id,
    webhookType: 'external_webhook',
    status: 'success',
    url: 'https://example.com/hook',
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: '{}',
    responseStatusCode: 200,
    responseHeaders: {},
    responseBody: 'ok',
    attemptNumber: 1,
    durationMs: 5,
    ...over,
  });

  describe('a real delivery', () => {
    it('is listed and readable with its request and response', async () => {
      const workspace = (await t.store.workspaces.get(t.ws.id))!;
      const receiver = await startWebhookReceiver({
        secret: workspace.webhookSecret,
        now: () => clock.now(),
      });
      // The engine's dispatcher (started by createTestApi), as in production.
      const dispatcher = t.engine.webhooks;
      try {
        receiver.respondWith('error');
        const payload = { status: 'completed', call: { call_id: 'call-A', model_id: 'agent-A' } };
        const d = await t.store.transaction((repos) =>
          repos.webhooks.enqueue({
            workspaceId: t.ws.id,
            type: 'external_webhook',
            url: `${receiver.url}/hook`,
            payload,
            callId: 'call-A',
            assistantId: 'agent-A',
          }),
        );
        dispatcher.wake();
        await dispatcher.drain();
        clock.advance(10_000);
        await dispatcher.drain();
        expect(receiver.received.map((r) => r.verified)).toEqual([true, true]);

        const res = await list('?call_id=call-A');
        expect(res.statusCode, res.body).toBe(200);
        const body = res.json() as { status: string; response: { items: Json[]; total: number } };
        expect(body.status).toBe('ok');
        expect(Object.keys(body.response).sort()).toEqual(['items', 'page_number', 'page_size', 'total']);
        expect(body.response).toMatchObject({ total: 2, page_number: 1, page_size: 10 });
        const [latest, first] = body.response.items as Json[];
        expect(latest).toMatchObject({
          webhook_id: d.id,
          webhook_type: 'external_webhook',
          status: 'success',
          call_id: 'call-A',
          assistant_id: 'agent-A',
          url: `${receiver.url}/hook`,
          response_status_code: 200,
          attempt_number: 2,
          error: null,
        });
        expect(first).toMatchObject({ status: 'pending', response_status_code: 500, attempt_number: 1 });
        expect(first?.response_body).toBe('internal error');
        expect(latest?.created_at).toMatch(ISO);
        expect(typeof latest?.duration_ms).toBe('number');

        const one = await get(String(latest?.webhook_log_id));
        expect(one.statusCode, one.body).toBe(200);
        const read = one.json().response as Json;
        // The detail is the list item plus the published detail's fields.
        expect(read).toEqual({
          ...latest,
          workspace_id: t.ws.id,
          action_id: '',
          response_timestamp: latest?.created_at,
          error_message: '',
          request_payload: payload,
          response_payload: expect.any(Object),
          request_query_params: {},
        });
        expect(read.request_body).toBe(receiver.received[1]?.body);
        expect(JSON.parse(read.request_body as string)).toEqual(payload);
        const headers = read.request_headers as Record<string, string>;
        expect(headers['webhook-id']).toBe(d.id);
        expect(headers['webhook-signature']).toBe(receiver.received[1]?.headers['webhook-signature']);
        expect((read.response_headers as Record<string, string>)['content-type']).toBe('application/json');
      } finally {
        await receiver.close();
      }
    });
  });

  describe('filters and pages', () => {
    beforeAll(async () => {
      clock.set(t0 + HOUR);
      await t.store.webhooks.appendLog(log({ callId: 'f-1', assistantId: 'ag-1' }));
      clock.set(t0 + 2 * HOUR);
      await t.store.webhooks.appendLog(
        log({ callId: 'f-2', status: 'failed', webhookType: 'inbound_webhook', responseStatusCode: 410 }),
      );
      clock.set(t0 + 3 * HOUR);
      await t.store.webhooks.appendLog(
        log({ callId: 'f-1', status: 'pending', webhookType: 'custom_action' }),
      );
      await t.store.webhooks.appendLog(log({ workspaceId: t.other.id, callId: 'f-1' }));
    });

    const ids = async (query: string): Promise<{ total: number; calls: unknown[] }> => {
      const res = await list(query);
      expect(res.statusCode, res.body).toBe(200);
      const r = res.json().response as { items: Json[]; total: number };
      return { total: r.total, calls: r.items.map((i) => i.call_id) };
    };

    it('filters by type, status, call, agent and dates (inclusive)', async () => {
      expect(await ids('?call_id=f-1')).toEqual({ total: 2, calls: ['f-1', 'f-1'] });
      expect((await ids('?assistant_id=ag-1')).total).toBe(1);
      expect(await ids('?webhook_type=inbound_webhook')).toEqual({ total: 1, calls: ['f-2'] });
      expect((await ids('?webhook_type=custom_action&status=pending')).total).toBe(1);
      expect((await ids('?status=failed')).calls).toEqual(['f-2']);
      expect((await ids(`?from_date=${t0 + HOUR}&to_date=${t0 + 2 * HOUR}`)).calls).toEqual(['f-2', 'f-1']);
      expect((await ids(`?from_date=${t0 + 2 * HOUR + 1}&call_id=f-1`)).total).toBe(1);
      expect((await ids(`?to_date=${t0 + HOUR - 1}&call_id=f-1`)).total).toBe(0);
    });

    it('pages newest first with total, page_number and page_size', async () => {
      const all = await ids('?page_size=100');
      const p1 = await list('?page_size=2&page_number=1');
      const p2 = await list('?page_size=2&page_number=2');
      const r1 = p1.json().response as {
        items: Json[];
        total: number;
        page_number: number;
        page_size: number;
      };
      const r2 = p2.json().response as { items: Json[]; total: number; page_number: number };
      expect(r1).toMatchObject({ total: all.total, page_number: 1, page_size: 2 });
      expect(r2.page_number).toBe(2);
      expect([...r1.items, ...r2.items].map((i) => i.call_id)).toEqual(all.calls.slice(0, 4));
      const beyond = await list('?page_number=1000');
      expect(beyond.json().response).toMatchObject({ items: [], total: all.total });
    });

    it('never shows another workspace’s logs', async () => {
      expect((await ids('?call_id=f-1')).total).toBe(2);
      const theirs = await list('?call_id=f-1', t.other.key);
      expect(theirs.json().response.total).toBe(1);
      const id = (theirs.json().response.items as Json[])[0]?.webhook_log_id as string;
      const mine = await get(id);
      const unknown = await get(MISSING_ID);
      expectNotFound(mine);
      expectNotFound(unknown);
      expect(mine.json().detail.description).toBe(`webhook log ${id} not found`);
      expect(unknown.json().detail.description).toBe(`webhook log ${MISSING_ID} not found`);
      expect((await get(id, t.other.key)).statusCode).toBe(200);
    });
  });

  describe('search and http_method', () => {
    let inboundId: string;
    beforeAll(async () => {
      clock.set(t0 + 4 * HOUR);
      await t.store.webhooks.appendLog(
        log({ callId: 's-Call-1', url: 'https://Hooks.Example.com/Path%20_x\\y?Q=1' }),
      );
      await t.store.webhooks.appendLog(
        log({ callId: 's-2', url: 'https://other.test/ÉTÉ', webhookType: 'custom_action' }),
      );
      inboundId = (
        await t.store.webhooks.appendLog(
          log({ url: 'https://other.test/inbound', webhookType: 'inbound_webhook', callId: null }),
        )
      ).id;
      await t.store.webhooks.appendLog(
        log({ workspaceId: t.other.id, callId: 's-Call-1', url: 'https://hooks.example.com/Path%20_x\\y' }),
      );
    });

    const found = async (query: string): Promise<{ total: number; urls: unknown[] }> => {
      const res = await list(query);
      expect(res.statusCode, res.body).toBe(200);
      const r = res.json().response as { items: Json[]; total: number };
      return { total: r.total, urls: r.items.map((i) => i.url) };
    };
    const hooks = 'https://Hooks.Example.com/Path%20_x\\y?Q=1';

    it('search: a substring of the URL or the call id, ASCII letters in any case', async () => {
      expect(await found('?search=hooks.EXAMPLE.com/path')).toEqual({ total: 1, urls: [hooks] });
      expect(await found('?search=S-CALL-1')).toEqual({ total: 1, urls: [hooks] });
      expect(await found('?search=q%3D1')).toEqual({ total: 1, urls: [hooks] });
      expect((await found('?search=other.test')).total).toBe(2);
      // Other letters match as written, the same on both stores.
      expect((await found(`?search=${encodeURIComponent('ÉTÉ')}`)).total).toBe(1);
      expect((await found(`?search=${encodeURIComponent('été')}`)).total).toBe(0);
      expect((await found('?search=nothing-like-this')).total).toBe(0);
      // An empty search is no filter.
      expect((await found('?search=')).total).toBe((await found('')).total);
    });

    it('search: %, _ and \\ are plain characters', async () => {
      expect(await found('?search=%25')).toEqual({ total: 1, urls: [hooks] });
      expect(await found('?search=_')).toEqual({ total: 1, urls: [hooks] });
      expect(await found('?search=%5C')).toEqual({ total: 1, urls: [hooks] });
      expect((await found('?search=h%25k')).total).toBe(0);
      expect((await found('?search=h_ok')).total).toBe(0);
    });

    it('search: the log id and the webhook id (the webhook-id header)', async () => {
      expect(await found(`?search=${inboundId.toUpperCase()}`)).toEqual({
        total: 1,
        urls: ['https://other.test/inbound'],
      });
      const all = (await list('?webhook_type=external_webhook&page_size=100')).json().response
        .items as Json[];
      const webhookId = all.find((i) => i.webhook_id !== null)!.webhook_id as string;
      const res = (await list(`?search=${webhookId.slice(4, 20)}`)).json().response as { items: Json[] };
      expect(res.items.length).toBe(all.filter((i) => i.webhook_id === webhookId).length);
      expect(res.items.every((i) => i.webhook_id === webhookId)).toBe(true);
    });

    it('http_method: webhooks are POSTs; custom actions record no method', async () => {
      const all = (await list('?page_size=100')).json().response.items as Json[];
      const posted = all.filter((i) => i.http_method === 'POST').length;
      expect(posted).toBe(all.filter((i) => i.webhook_type !== 'custom_action').length);
      expect((await found('?http_method=post&page_size=100')).total).toBe(posted);
      expect((await found('?http_method=POST')).total).toBe(posted);
      for (const method of ['get', 'put', 'patch', 'DELETE']) {
        expect((await found(`?http_method=${method}`)).total).toBe(0);
      }
      expect(await found('?http_method=post&search=other.test')).toEqual({
        total: 1,
        urls: ['https://other.test/inbound'],
      });
    });

    it('never searches another workspace’s logs', async () => {
      expect((await found('?search=s-call-1')).total).toBe(1);
      const theirs = await list('?search=s-call-1', t.other.key);
      expect(theirs.json().response.total).toBe(1);
    });
  });

  describe('bad input', () => {
    const cases: [string, Loc][] = [
      ['?page_number=0', ['query', 'page_number']],
      ['?page_number=abc', ['query', 'page_number']],
      ['?page_size=0', ['query', 'page_size']],
      ['?page_size=101', ['query', 'page_size']],
      ['?webhook_type=post_call', ['query', 'webhook_type']],
      ['?status=done', ['query', 'status']],
      ['?from_date=-1', ['query', 'from_date']],
      ['?to_date=yesterday', ['query', 'to_date']],
      ['?from_date=2000&to_date=1000', ['query', 'to_date']],
      ['?call_id=', ['query', 'call_id']],
      ['?http_method=head', ['query', 'http_method']],
      ['?http_method=Post', ['query', 'http_method']],
      [`?search=${'a'.repeat(201)}`, ['query', 'search']],
    ];
    for (const [query, loc] of cases) {
      it(`${query} is a 400 naming ${loc.join('.')}`, async () => {
        expectFieldError(await list(query), loc);
      });
    }

    it('needs a key', async () => {
      expect((await list('', null)).statusCode).toBe(401);
      expect((await get(MISSING_ID, null)).statusCode).toBe(401);
    });
  });

  describe('secret rotation', () => {
    it('keeps the old secret as the previous one for 24 h', async () => {
      const before = (await t.store.workspaces.get(t.ws.id))!;
      const res = await t.call({ method: 'POST', url: '/v2/webhook_secret/rotate' });
      expect(res.statusCode).toBe(200);
      const after = (await t.store.workspaces.get(t.ws.id))!;
      expect(res.json().response.webhook_secret).toBe(after.webhookSecret);
      expect(after.previousWebhookSecret).toBe(before.webhookSecret);
      expect(after.previousWebhookSecretExpiresAt).toBe(clock.now() + 24 * HOUR);
    });
  });
});
