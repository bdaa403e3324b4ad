import { afterAll, beforeAll, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { ISO, expectFieldError, expectNotFound, type Json, okResponse } from '../assertions.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver/index.ts';

// Drop-in compatibility of the webhook logs API: a client written for the published API sends
// its requests as that API documents them (`workspace_id` in the query, dates as ISO 8601
// date-times, `content-type: application/json` with an empty body) and reads the fields and types
// the published list items and detail carry (`request_timestamp`, `model_id`, `webhook_url`,
// `http_method`, `call_id` a string, `request_payload` an object ...). A real post-call delivery
// to a real receiver makes the rows. The expected shapes are written out here, not taken from
// Parley's schemas.

const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };
const HOUR = 3_600_000;

/** A list item as the published WebhookLogListItem types it. */
function expectPublishedItem(item: Json): void {
  expect(item.request_timestamp).toMatch(ISO);
  for (const f of ['webhook_log_id', 'model_id', 'status', 'webhook_url', 'http_method'])
    expect(typeof item[f], f).toBe('string');
  expect(['pending', 'success', 'failed']).toContain(item.status);
}

forEachStore('compat: webhook logs, as a client of the published API uses them', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let receiver: WebhookReceiver;
  let t0: number;
  const payload = { status: 'completed', call: { call_id: 'call-L', model_id: 'agent-L' } };

  beforeAll(async () => {
    clock = createManualClock(Date.UTC(2026, 4, 1, 12));
    t0 = clock.now();
    t = await createTestApi(target, { clock, allowPrivateNetwork: true });
    const workspace = (await t.store.workspaces.get(t.ws.id))!;
    receiver = await startWebhookReceiver({ secret: workspace.webhookSecret, now: () => clock.now() });
    // A post-call webhook refused once, then delivered: two attempts.
    receiver.respondWith('error');
    await t.store.transaction((repos) =>
      repos.webhooks.enqueue({
        workspaceId: t.ws.id,
        type: 'external_webhook',
        url: `${receiver.url}/hook?source=parley`,
        payload,
        callId: 'call-L',
        assistantId: 'agent-L',
      }),
    );
    t.engine.webhooks.wake();
    await t.engine.webhooks.drain();
    clock.advance(10_000);
    await t.engine.webhooks.drain();
    // An inbound webhook attempt an hour later that got no answer, outside any call's agent.
    clock.set(t0 + HOUR);
    await t.store.webhooks.appendLog({
      workspaceId: t.ws.id,
      webhookType: 'inbound_webhook',
      status: 'failed',
      url: 'https://example.com/inbound',
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: '{"event":"call_inbound"}',
      responseStatusCode: null,
      responseHeaders: null,
      responseBody: null,
      attemptNumber: 4,
      durationMs: 2500,
      error: 'timeout',
    });
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  const list = async (query: string) =>
    okResponse(
      await t.call({ method: 'GET', url: `/v2/logs?workspace_id=${t.ws.id}&${query}`, ...EMPTY_JSON }),
    );

  it('lists attempts as published list items, paged', async () => {
    const page = await list('page_number=1&page_size=10');
    for (const f of ['total', 'page_size', 'page_number']) expect(Number.isInteger(page[f]), f).toBe(true);
    expect(page).toMatchObject({ total: 3, page_number: 1, page_size: 10 });
    const items = page.items as Json[];
    items.forEach(expectPublishedItem);
    const [inbound, delivered, refused] = items;
    expect(delivered).toMatchObject({
      model_id: 'agent-L',
      status: 'success',
      webhook_url: `${receiver.url}/hook?source=parley`,
      response_status_code: 200,
      http_method: 'POST',
    });
    expect(refused).toMatchObject({ status: 'pending', response_status_code: 500 });
    // No agent and no call: empty strings, not null.
    expect(inbound).toMatchObject({ model_id: '', call_id: '', status: 'failed', http_method: 'POST' });
    expect(Date.parse(delivered!.request_timestamp as string)).toBeLessThanOrEqual(
      Date.parse(delivered!.created_at as string),
    );
  });

  it('filters by ISO 8601 from_date and to_date (the published form) as by milliseconds', async () => {
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    const early = await list(`from_date=${iso(t0 - 1000)}&to_date=${iso(t0 + HOUR - 1)}`);
    expect(early.total).toBe(2);
    const late = await list(`from_date=${iso(t0 + HOUR)}`);
    expect((late.items as Json[]).map((i) => i.webhook_type)).toEqual(['inbound_webhook']);
    // An offset given with its + left unencoded (it arrives as a space).
    const offset = new Date(t0 + HOUR + 2 * HOUR).toISOString().replace('Z', '+02:00').replace('.000', '');
    expect((await list(`from_date=${offset}`)).total).toBe(1);
    expect((await list(`from_date=${t0 + HOUR}&to_date=${iso(t0 + 2 * HOUR)}`)).total).toBe(1);
    expect((await list('webhook_type=external_webhook&status=success&call_id=call-L')).total).toBe(1);
    expect((await list('assistant_id=agent-L')).total).toBe(2);
  });

  it('reads one attempt with the published detail fields', async () => {
    const [, delivered] = (await list('page_size=10')).items as Json[];
    const detail = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/logs/${delivered!.webhook_log_id as string}?workspace_id=${t.ws.id}`,
        ...EMPTY_JSON,
      }),
    );
    for (const f of [
      'webhook_log_id',
      'webhook_url',
      'call_id',
      'model_id',
      'workspace_id',
      'action_id',
      'error_message',
    ])
      expect(typeof detail[f], f).toBe('string');
    expect(['external_webhook', 'inbound_webhook', 'custom_action']).toContain(detail.webhook_type);
    expect(detail.request_timestamp).toMatch(ISO);
    expect(detail.response_timestamp).toMatch(ISO);
    for (const f of ['attempt_number', 'response_status_code', 'duration_ms'])
      expect(Number.isInteger(detail[f]), f).toBe(true);
    for (const f of [
      'request_headers',
      'request_payload',
      'response_headers',
      'response_payload',
      'request_query_params',
    ])
      expect(typeof detail[f], f).toBe('object');
    expect(detail).toMatchObject({
      webhook_type: 'external_webhook',
      call_id: 'call-L',
      model_id: 'agent-L',
      workspace_id: t.ws.id,
      attempt_number: 2,
      status: 'success',
      error_message: '',
      request_payload: payload,
      request_query_params: { source: 'parley' },
    });
    expect((detail.request_headers as Json)['webhook-id']).toEqual(expect.any(String));
  });

  it('reads an attempt that got no answer: empty strings where the published detail has strings', async () => {
    const [inbound] = (await list('webhook_type=inbound_webhook')).items as Json[];
    const detail = okResponse(
      await t.call({ method: 'GET', url: `/v2/logs/${inbound!.webhook_log_id as string}`, ...EMPTY_JSON }),
    );
    expect(detail).toMatchObject({
      call_id: '',
      model_id: '',
      response_timestamp: '',
      error_message: 'timeout',
      response_payload: {},
      request_payload: { event: 'call_inbound' },
      response_status_code: null,
    });
  });

  it('searches and filters by the published http_method', async () => {
    const search = await list('page_number=1&page_size=10&search=SOURCE%3Dparley');
    expect(search.total).toBe(2);
    (search.items as Json[]).forEach(expectPublishedItem);
    expect(
      (search.items as Json[]).every((i) => i.webhook_url === `${receiver.url}/hook?source=parley`),
    ).toBe(true);
    expect((await list('search=CALL-L')).total).toBe(2);
    expect((await list('search=example.com/inbound&webhook_type=inbound_webhook')).total).toBe(1);
    // The published enum is lower case; the upper case http_method shows is taken too.
    const posted = await list('http_method=post');
    expect(posted.total).toBe(3);
    expect((posted.items as Json[]).every((i) => i.http_method === 'POST')).toBe(true);
    expect((await list('http_method=POST&search=inbound')).total).toBe(1);
    expect((await list('http_method=get')).total).toBe(0);
    expect((await list('http_method=delete&search=call-l')).total).toBe(0);
  });

  it('keeps bad input a 400 naming the field', async () => {
    const bad = (query: string) => t.call({ method: 'GET', url: `/v2/logs?${query}`, ...EMPTY_JSON });
    expectFieldError(await bad('from_date=yesterday'), ['query', 'from_date']);
    expectFieldError(await bad('to_date=2026-02-30T00:00:00Z'), ['query', 'to_date']);
    expectFieldError(await bad('to_date=2026-05-01T00:00:00'), ['query', 'to_date']);
    expectFieldError(await bad('from_date=2026-05-02T00:00:00Z&to_date=2026-05-01T00:00:00Z'), [
      'query',
      'to_date',
    ]);
    expectFieldError(await bad('page_size=101'), ['query', 'page_size']);
    expectFieldError(await bad('http_method=trace'), ['query', 'http_method']);
    expectFieldError(await bad(`search=${'x'.repeat(201)}`), ['query', 'search']);
    expectNotFound(await t.call({ method: 'GET', url: '/v2/logs/nope', ...EMPTY_JSON }));
  });
});
