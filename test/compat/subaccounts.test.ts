import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { expectFieldError, expectNotFound, type Json, okResponse } from '../assertions.ts';

// Drop-in compatibility of the subaccount API: a client written for the published API sends its
// requests as that API documents them (`subaccount_name`, `concurrency`, its other settings,
// `content-type: application/json` with an empty body on body-less operations) and reads the
// fields and types the published responses carry (`subaccounts[0]` on a read, `minutes_used` an
// integer, `permissions` booleans ...). The expected shapes are written out here, not taken from
// Parley's schemas.

const EMPTY_JSON = { headers: { 'content-type': 'application/json' }, payload: '' };

const PERMISSIONS = [
  'assistants',
  'knowledge_base',
  'actions',
  'workflows',
  'contacts',
  'phone_numbers',
  'inbound',
  'outbound',
  'widget',
  'chat',
  'logs',
  'simulations',
  'analytics',
];

/** A subaccount item as the published list and read type it. */
function expectPublishedSubaccount(s: Json): void {
  expect(typeof s.subaccount_id).toBe('string');
  expect(typeof s.agency_id).toBe('string');
  expect(typeof s.name).toBe('string');
  expect(Number.isInteger(s.minutes_used)).toBe(true);
  expect(s.max_minutes === null || Number.isInteger(s.max_minutes)).toBe(true);
  expect(Array.isArray(s.pricing_tiers)).toBe(true);
  expect(Array.isArray(s.members)).toBe(true);
  const permissions = s.permissions as Json;
  for (const p of PERMISSIONS) expect(typeof permissions[p], p).toBe('boolean');
}

forEachStore('compat: subaccounts, as a client of the published API uses them', (target) => {
  let t: TestApi;

  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  async function create(body: Json): Promise<Json> {
    const response = okResponse(await t.call({ method: 'POST', url: '/v2/subaccounts', payload: body }));
    expect(typeof response.subaccount_id).toBe('string');
    expect(typeof response.api_key).toBe('string');
    return response;
  }

  it('creates a subaccount from the published body; its key works', async () => {
    const created = await create({
      subaccount_name: 'Client A',
      user_email: 'owner@client-a.example',
      concurrency: 3,
      max_agents: null,
      max_minutes: 500,
      max_workflow_runs: null,
      grant_permissions: ['assistants', 'logs'],
      revoke_permissions: ['analytics'],
    });
    expect(created).toMatchObject({ name: 'Client A', max_concurrent_calls: 3, agency_id: t.ws.id });
    const own = await t.call({ method: 'GET', url: '/v2/assistants/', key: created.api_key as string });
    expect(own.statusCode, own.body).toBe(200);
  });

  it('reads one subaccount, also as the one-element subaccounts array', async () => {
    const created = await create({ subaccount_name: 'Reader' });
    const response = okResponse(
      await t.call({
        method: 'GET',
        url: `/v2/subaccounts/${created.subaccount_id as string}`,
        ...EMPTY_JSON,
      }),
    );
    const items = response.subaccounts as Json[];
    expect(items).toHaveLength(1);
    expectPublishedSubaccount(items[0]!);
    expect(items[0]).toMatchObject({
      subaccount_id: created.subaccount_id,
      agency_id: t.ws.id,
      name: 'Reader',
      minutes_used: 0,
      max_minutes: null,
      pricing_tiers: [],
      members: [],
    });
    expectPublishedSubaccount(response);
  });

  it('lists subaccounts at GET /subaccounts/', async () => {
    await create({ subaccount_name: 'Listed' });
    const response = okResponse(await t.call({ method: 'GET', url: '/v2/subaccounts/', ...EMPTY_JSON }));
    const items = response.subaccounts as Json[];
    expect(items.length).toBeGreaterThan(0);
    items.forEach(expectPublishedSubaccount);
    expect(items[0]!.name).toBe('Listed');
  });

  it('counts minutes_used in whole minutes and resets it with minutes_used: 0', async () => {
    const created = await create({ subaccount_name: 'Usage' });
    const id = created.subaccount_id as string;
    await t.store.workspaces.update(id, { usageSeconds: 61 });
    const read = okResponse(await t.call({ method: 'GET', url: `/v2/subaccounts/${id}`, ...EMPTY_JSON }));
    expect(read).toMatchObject({ minutes_used: 2, seconds_used: 61 });
    const reset = okResponse(
      await t.call({ method: 'PUT', url: `/v2/subaccounts/${id}`, payload: { minutes_used: 0 } }),
    );
    expect(reset).toMatchObject({ minutes_used: 0, seconds_used: 0 });
  });

  it('updates with subaccount_name and concurrency; the answer carries subaccount_id', async () => {
    const created = await create({ subaccount_name: 'Before', concurrency: 2 });
    const id = created.subaccount_id as string;
    const response = okResponse(
      await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${id}`,
        payload: {
          subaccount_name: 'After',
          concurrency: 4,
          invite_user_email: 'x@example.com',
          max_minutes: null,
        },
      }),
    );
    expect(typeof response.subaccount_id).toBe('string');
    expect(response).toMatchObject({ subaccount_id: id, name: 'After', max_concurrent_calls: 4 });
  });

  it('keeps bad input a 400 naming the field', async () => {
    expectFieldError(await t.call({ method: 'POST', url: '/v2/subaccounts', payload: {} }), ['body', 'name']);
    expectFieldError(
      await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { subaccount_name: 'X', concurrency: 'two' },
      }),
      ['body', 'concurrency'],
    );
    expectFieldError(
      await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { subaccount_name: 5 } }),
      ['body', 'subaccount_name'],
    );
    expectFieldError(
      await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: 'A', subaccount_name: 'B' } }),
      ['body', 'subaccount_name'],
    );
    expectFieldError(
      await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { subaccount_name: 'Big', concurrency: 11 },
      }),
      ['body', 'concurrency'],
    );
    const created = await create({ subaccount_name: 'Strict' });
    expectFieldError(
      await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${created.subaccount_id as string}`,
        payload: { max_concurrent_calls: 2, concurrency: 3 },
      }),
      ['body', 'concurrency'],
    );
  });

  it('deletes with an empty JSON body; the answer is a string', async () => {
    const created = await create({ subaccount_name: 'Doomed' });
    const url = `/v2/subaccounts/${created.subaccount_id as string}`;
    const response = okResponse(await t.call({ method: 'DELETE', url, ...EMPTY_JSON }));
    expect(typeof response.answer).toBe('string');
    expectNotFound(await t.call({ method: 'GET', url, ...EMPTY_JSON }));
  });
});
