import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, createWorkspace, forEachStore, type TestApi } from '../helpers.ts';

// Subaccounts (WIRE.md section 11): workspaces of their own, managed with the parent's keys.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface Created {
  subaccount_id: string;
  api_key: string;
  name: string;
  plan: string;
  max_concurrent_calls: number;
  minutes_used: number;
  created_at: string;
  updated_at: string;
}

forEachStore('subaccounts', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  async function create(body: Record<string, unknown>, key?: string): Promise<Created> {
    const res = await t.call({ method: 'POST', url: '/v2/subaccounts', payload: body, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response as Created;
  }

  function expectValidationError(res: { statusCode: number; json(): unknown }, field: string): void {
    expect(res.statusCode).toBe(400);
    const detail = (res.json() as { detail: { status: string; category: string; description: string } })
      .detail;
    expect(detail.status).toBe('error');
    expect(detail.category).toBe('validation');
    expect(detail.description).toContain(field);
  }

  describe('POST /v2/subaccounts', () => {
    it('creates a subaccount and returns its fields and a key', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 'Client A', max_concurrent_calls: 3, plan: 'standard' },
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toBe('ok');
      expect(Object.keys(body.response).sort()).toEqual(
        [
          'api_key',
          'created_at',
          'max_concurrent_calls',
          'minutes_used',
          'seconds_used',
          'agency_id',
          'permissions',
          'pricing_tiers',
          'members',
          'max_minutes',
          'name',
          'plan',
          'subaccount_id',
          'updated_at',
        ].sort(),
      );
      expect(body.response).toMatchObject({
        name: 'Client A',
        plan: 'standard',
        max_concurrent_calls: 3,
        minutes_used: 0,
        seconds_used: 0,
        agency_id: t.ws.id,
        pricing_tiers: [],
        members: [],
        max_minutes: null,
      });
      expect(body.response.subaccount_id).toMatch(UUID);
      expect(body.response.subaccount_id).not.toBe(t.ws.id);
      expect(body.response.api_key).toEqual(expect.any(String));
      expect(body.response.api_key.length).toBeGreaterThanOrEqual(32);
      expect(body.response.created_at).toMatch(ISO);
      expect(body.response.updated_at).toMatch(ISO);
    });

    it('returns a key that authenticates as the subaccount, a workspace of its own', async () => {
      const sub = await create({ name: 'Client B' });
      const me = await t.call({ method: 'GET', url: '/v2/workspace', key: sub.api_key });
      expect(me.statusCode).toBe(200);
      expect(me.json().response).toMatchObject({
        workspace_id: sub.subaccount_id,
        name: 'Client B',
        parent_workspace_id: t.ws.id,
      });

      const parent = await t.call({ method: 'GET', url: '/v2/workspace' });
      expect(parent.json().response.parent_workspace_id).toBeNull();

      // Agents are per workspace: the subaccount's agent is not the parent's, and vice versa.
      const parentAgent = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: agentBody({ name: 'Parent agent' }),
      });
      expect(parentAgent.statusCode).toBe(200);
      const parentAgentId = parentAgent.json().response.model_id as string;
      const childAgent = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: agentBody({ name: 'Child agent' }),
        key: sub.api_key,
      });
      expect(childAgent.statusCode).toBe(200);
      const childAgentId = childAgent.json().response.model_id as string;

      const childList = await t.call({ method: 'GET', url: '/v2/assistants/', key: sub.api_key });
      expect(childList.statusCode).toBe(200);
      expect(childList.json().response.assistants.map((a: { model_id: string }) => a.model_id)).toEqual([
        childAgentId,
      ]);
      const parentList = await t.call({ method: 'GET', url: '/v2/assistants/?limit=100' });
      const parentIds = parentList.json().response.assistants.map((a: { model_id: string }) => a.model_id);
      expect(parentIds).toContain(parentAgentId);
      expect(parentIds).not.toContain(childAgentId);

      const crossRead = await t.call({
        method: 'GET',
        url: `/v2/assistants/${parentAgentId}`,
        key: sub.api_key,
      });
      expect(crossRead.statusCode).toBe(400);
      expect(crossRead.json().detail.category).toBe('not_found');
    });

    it('shows the key once: reads never include it', async () => {
      const sub = await create({ name: 'Client C' });
      const one = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(one.statusCode).toBe(200);
      expect(one.json().response).not.toHaveProperty('api_key');
      expect(one.body).not.toContain(sub.api_key);
      const list = await t.call({ method: 'GET', url: '/v2/subaccounts?limit=1000' });
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toContain(sub.api_key);
      for (const item of list.json().response.subaccounts) expect(item).not.toHaveProperty('api_key');
      const put = await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${sub.subaccount_id}`,
        payload: { name: 'Client C2' },
      });
      expect(put.statusCode).toBe(200);
      expect(put.json().response).not.toHaveProperty('api_key');
    });

    it("defaults plan and max_concurrent_calls from the parent's", async () => {
      const fromEnterprise = await create({ name: 'Default E' });
      expect(fromEnterprise).toMatchObject({ plan: 'enterprise', max_concurrent_calls: 10 });

      const standard = await createWorkspace(t.store, 'standard parent', 'standard', 4);
      const fromStandard = await create({ name: 'Default S' }, standard.key);
      expect(fromStandard).toMatchObject({ plan: 'standard', max_concurrent_calls: 4 });
    });

    it("accepts max_concurrent_calls equal to the parent's and rejects above it", async () => {
      const equal = await create({ name: 'Max', max_concurrent_calls: 10 });
      expect(equal.max_concurrent_calls).toBe(10);
      const above = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 'Too many', max_concurrent_calls: 11 },
      });
      expectValidationError(above, 'max_concurrent_calls');
    });

    it('rejects an enterprise subaccount under a standard parent', async () => {
      const standard = await createWorkspace(t.store, 'standard parent 2', 'standard', 4);
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 'Upgrade', plan: 'enterprise' },
        key: standard.key,
      });
      expectValidationError(res, 'plan');
      const ok = await create({ name: 'Same plan', plan: 'standard' }, standard.key);
      expect(ok.plan).toBe('standard');
    });

    it('rejects bad bodies with 400 naming the field', async () => {
      expectValidationError(await t.call({ method: 'POST', url: '/v2/subaccounts', payload: {} }), 'name');
      expectValidationError(
        await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: '' } }),
        'name',
      );
      expectValidationError(
        await t.call({
          method: 'POST',
          url: '/v2/subaccounts',
          payload: { name: 'x', max_concurrent_calls: 0 },
        }),
        'max_concurrent_calls',
      );
      expectValidationError(
        await t.call({
          method: 'POST',
          url: '/v2/subaccounts',
          payload: { name: 'x', max_concurrent_calls: '3' },
        }),
        'max_concurrent_calls',
      );
      expectValidationError(
        await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: 'x', plan: 'gold' } }),
        'plan',
      );
    });

    it("a subaccount's key cannot create subaccounts", async () => {
      const sub = await create({ name: 'Child' });
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 'Grandchild' },
        key: sub.api_key,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail.status).toBe('error');
      expect(res.json().detail.description).toContain('subaccount');
      const list = await t.call({ method: 'GET', url: '/v2/subaccounts', key: sub.api_key });
      expect(list.statusCode).toBe(200);
      expect(list.json().response.pagination.total_records).toBe(0);
    });
  });

  describe('GET /v2/subaccounts', () => {
    let parentKey: string;
    let ids: string[];
    beforeAll(async () => {
      parentKey = (await createWorkspace(t.store, 'lister')).key;
      ids = [];
      for (const name of ['first', 'second', 'third']) {
        ids.push((await create({ name }, parentKey)).subaccount_id);
      }
    });

    it('lists only its own subaccounts, newest first', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/subaccounts', key: parentKey });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toBe('ok');
      expect(body.response.pagination).toEqual({ total_records: 3, limit: 20, offset: 0 });
      expect(body.response.subaccounts.map((s: { subaccount_id: string }) => s.subaccount_id)).toEqual(
        [...ids].reverse(),
      );
      expect(body.response.subaccounts.map((s: { name: string }) => s.name)).toEqual([
        'third',
        'second',
        'first',
      ]);
      expect(body.response.subaccounts[0]).toMatchObject({ plan: 'enterprise', minutes_used: 0 });
    });

    it('pages with limit and offset', async () => {
      const first = await t.call({ method: 'GET', url: '/v2/subaccounts?limit=2', key: parentKey });
      expect(first.statusCode).toBe(200);
      expect(first.json().response.pagination).toEqual({ total_records: 3, limit: 2, offset: 0 });
      expect(
        first.json().response.subaccounts.map((s: { subaccount_id: string }) => s.subaccount_id),
      ).toEqual([ids[2], ids[1]]);
      const second = await t.call({ method: 'GET', url: '/v2/subaccounts?limit=2&offset=2', key: parentKey });
      expect(second.json().response.pagination).toEqual({ total_records: 3, limit: 2, offset: 2 });
      expect(
        second.json().response.subaccounts.map((s: { subaccount_id: string }) => s.subaccount_id),
      ).toEqual([ids[0]]);
      const past = await t.call({ method: 'GET', url: '/v2/subaccounts?offset=10', key: parentKey });
      expect(past.statusCode).toBe(200);
      expect(past.json().response.subaccounts).toEqual([]);
      expect(past.json().response.pagination.total_records).toBe(3);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
    ])('rejects %s with 400', async (query, field) => {
      const res = await t.call({ method: 'GET', url: `/v2/subaccounts?${query}`, key: parentKey });
      expectValidationError(res, field);
    });
  });

  describe('GET, PUT and DELETE /v2/subaccounts/{id}', () => {
    it('reads one subaccount', async () => {
      const sub = await create({ name: 'Reader', max_concurrent_calls: 2 });
      const res = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(res.statusCode).toBe(200);
      const { api_key: _key, ...rest } = sub;
      // Also as the published API's one-element `subaccounts` array.
      expect(res.json()).toEqual({ status: 'ok', response: { ...rest, subaccounts: [rest] } });
    });

    it('updates name and max_concurrent_calls', async () => {
      const sub = await create({ name: 'Before', max_concurrent_calls: 2 });
      const res = await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${sub.subaccount_id}`,
        payload: { name: 'After', max_concurrent_calls: 7 },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('ok');
      expect(res.json().response).toMatchObject({
        subaccount_id: sub.subaccount_id,
        name: 'After',
        max_concurrent_calls: 7,
        plan: sub.plan,
        created_at: sub.created_at,
      });
      const read = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(read.json().response).toMatchObject({ name: 'After', max_concurrent_calls: 7 });
      // The subaccount itself sees its new settings.
      const me = await t.call({ method: 'GET', url: '/v2/workspace', key: sub.api_key });
      expect(me.json().response).toMatchObject({ name: 'After', max_concurrent_calls: 7 });
    });

    it('an empty PUT changes nothing', async () => {
      const sub = await create({ name: 'Stable', max_concurrent_calls: 4 });
      const res = await t.call({ method: 'PUT', url: `/v2/subaccounts/${sub.subaccount_id}`, payload: {} });
      expect(res.statusCode).toBe(200);
      expect(res.json().response).toMatchObject({
        name: 'Stable',
        max_concurrent_calls: 4,
        plan: 'enterprise',
      });
    });

    it("rejects a PUT over the parent's limits", async () => {
      const sub = await create({ name: 'Limited', max_concurrent_calls: 2 });
      expectValidationError(
        await t.call({
          method: 'PUT',
          url: `/v2/subaccounts/${sub.subaccount_id}`,
          payload: { max_concurrent_calls: 11 },
        }),
        'max_concurrent_calls',
      );
      const standard = await createWorkspace(t.store, 'standard parent 3', 'standard', 4);
      const child = await create({ name: 'Std child' }, standard.key);
      expectValidationError(
        await t.call({
          method: 'PUT',
          url: `/v2/subaccounts/${child.subaccount_id}`,
          payload: { plan: 'enterprise' },
          key: standard.key,
        }),
        'plan',
      );
      const after = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(after.json().response.max_concurrent_calls).toBe(2);
      const childAfter = await t.call({
        method: 'GET',
        url: `/v2/subaccounts/${child.subaccount_id}`,
        key: standard.key,
      });
      expect(childAfter.json().response.plan).toBe('standard');
    });

    it('resets usage with minutes_used: 0', async () => {
      const sub = await create({ name: 'Caller' });
      await t.store.workspaces.update(sub.subaccount_id, { usageSeconds: 600 });
      const before = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(before.json().response.minutes_used).toBe(10);
      const own = await t.call({ method: 'GET', url: '/v2/workspace', key: sub.api_key });
      expect(own.json().response.minutes_used).toBe(10);

      const reset = await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${sub.subaccount_id}`,
        payload: { minutes_used: 0 },
      });
      expect(reset.statusCode).toBe(200);
      expect(reset.json().response.minutes_used).toBe(0);
      const after = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(after.json().response).toMatchObject({ minutes_used: 0, name: 'Caller' });
    });

    it('a PUT without minutes_used keeps the usage', async () => {
      const sub = await create({ name: 'Keeper' });
      await t.store.workspaces.update(sub.subaccount_id, { usageSeconds: 90 });
      const res = await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${sub.subaccount_id}`,
        payload: { name: 'Keeper 2' },
      });
      expect(res.statusCode).toBe(200);
      // Whole minutes (a started minute counts); the seconds exactly.
      expect(res.json().response).toMatchObject({ minutes_used: 2, seconds_used: 90 });
    });

    it.each([5, -1, 0.5, '0', null])('rejects minutes_used: %j', async (value) => {
      const sub = await create({ name: 'No set' });
      await t.store.workspaces.update(sub.subaccount_id, { usageSeconds: 120 });
      const res = await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${sub.subaccount_id}`,
        payload: { minutes_used: value },
      });
      expectValidationError(res, 'minutes_used');
      const read = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(read.json().response.minutes_used).toBe(2);
    });

    it('returns 404 for an unknown id on GET, PUT and DELETE', async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await t.call({
          method,
          url: `/v2/subaccounts/${unknown}`,
          ...(method === 'PUT' ? { payload: { name: 'x' } } : {}),
        });
        expect(res.statusCode, method).toBe(404);
        expect(res.json().detail).toMatchObject({ status: 'error', category: 'not_found' });
        expect(res.json().detail.description).toContain(unknown);
      }
    });

    it('treats the parent itself as no subaccount', async () => {
      const res = await t.call({ method: 'GET', url: `/v2/subaccounts/${t.ws.id}` });
      expect(res.statusCode).toBe(404);
    });

    it("treats another parent's subaccount as missing", async () => {
      const foreign = await create({ name: 'Theirs' }, t.other.key);
      const url = `/v2/subaccounts/${foreign.subaccount_id}`;
      const get = await t.call({ method: 'GET', url });
      expect(get.statusCode).toBe(404);
      expect(get.json().detail.category).toBe('not_found');
      const put = await t.call({ method: 'PUT', url, payload: { name: 'Hijacked', minutes_used: 0 } });
      expect(put.statusCode).toBe(404);
      const del = await t.call({ method: 'DELETE', url });
      expect(del.statusCode).toBe(404);
      const list = await t.call({ method: 'GET', url: '/v2/subaccounts?limit=1000' });
      expect(list.body).not.toContain(foreign.subaccount_id);

      // Untouched for its real parent, and its key still works.
      const theirs = await t.call({ method: 'GET', url, key: t.other.key });
      expect(theirs.statusCode).toBe(200);
      expect(theirs.json().response.name).toBe('Theirs');
      const stillWorks = await t.call({ method: 'GET', url: '/v2/workspace', key: foreign.api_key });
      expect(stillWorks.statusCode).toBe(200);
    });

    it('deletes a subaccount: its key stops working and it is gone', async () => {
      const sub = await create({ name: 'Doomed' });
      const keyOk = await t.call({ method: 'GET', url: '/v2/workspace', key: sub.api_key });
      expect(keyOk.statusCode).toBe(200);

      const del = await t.call({ method: 'DELETE', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(del.statusCode).toBe(200);
      expect(del.json().status).toBe('ok');
      expect(del.json().response.answer).toEqual(expect.any(String));

      const keyGone = await t.call({ method: 'GET', url: '/v2/workspace', key: sub.api_key });
      expect(keyGone.statusCode).toBe(401);
      expect(keyGone.json().detail.category).toBe('auth');
      const get = await t.call({ method: 'GET', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(get.statusCode).toBe(404);
      const again = await t.call({ method: 'DELETE', url: `/v2/subaccounts/${sub.subaccount_id}` });
      expect(again.statusCode).toBe(404);
      const put = await t.call({
        method: 'PUT',
        url: `/v2/subaccounts/${sub.subaccount_id}`,
        payload: { name: 'Zombie' },
      });
      expect(put.statusCode).toBe(404);
      const list = await t.call({ method: 'GET', url: '/v2/subaccounts?limit=1000' });
      expect(list.body).not.toContain(sub.subaccount_id);

      // The parent is untouched.
      const parent = await t.call({ method: 'GET', url: '/v2/workspace' });
      expect(parent.statusCode).toBe(200);
    });

    it('a subaccount key cannot manage its own or sibling subaccounts', async () => {
      const a = await create({ name: 'Sibling A' });
      const b = await create({ name: 'Sibling B' });
      for (const id of [a.subaccount_id, b.subaccount_id]) {
        const res = await t.call({ method: 'DELETE', url: `/v2/subaccounts/${id}`, key: a.api_key });
        expect(res.statusCode).toBe(404);
      }
      const stillThere = await t.call({ method: 'GET', url: `/v2/subaccounts/${b.subaccount_id}` });
      expect(stillThere.statusCode).toBe(200);
    });
  });
});
