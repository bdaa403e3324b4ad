import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, createWorkspace, forEachStore, type TestApi } from '../helpers.ts';

// The caller's own workspace: settings (WIRE.md section 11), webhook secret (section 9), API keys.

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const WHSEC = /^whsec_[A-Za-z0-9+/]+=*$/;

forEachStore('workspace', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  async function newAgent(key?: string): Promise<string> {
    const res = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody(), key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().response.model_id as string;
  }

  describe('GET /v2/workspace', () => {
    it("returns the caller's workspace and its defaults", async () => {
      const res = await t.call({ method: 'GET', url: '/v2/workspace' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toBe('ok');
      expect(body.response).toMatchObject({
        workspace_id: t.ws.id,
        name: 'main',
        plan: 'enterprise',
        max_concurrent_calls: 10,
        calls_per_second: null,
        include_timeline_in_webhook: false,
        default_agent_id: null,
        minutes_used: 0,
        parent_workspace_id: null,
      });
      expect(body.response.created_at).toMatch(ISO);
      expect(body.response.updated_at).toMatch(ISO);
      // Settings are not secrets: the webhook secret has its own endpoint.
      expect(body.response).not.toHaveProperty('webhook_secret');
      expect(res.body).not.toContain('whsec_');
    });

    it('answers for the workspace of the key, never another', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/workspace', key: t.other.key });
      expect(res.json().response).toMatchObject({ workspace_id: t.other.id, name: 'other' });
      const standard = await createWorkspace(t.store, 'small', 'standard', 3);
      const small = await t.call({ method: 'GET', url: '/v2/workspace', key: standard.key });
      expect(small.json().response).toMatchObject({ plan: 'standard', max_concurrent_calls: 3 });
    });

    it('shows minutes_used from the usage counter', async () => {
      const w = await createWorkspace(t.store, 'usage');
      await t.store.workspaces.update(w.id, { usageSeconds: 150 });
      const res = await t.call({ method: 'GET', url: '/v2/workspace', key: w.key });
      expect(res.json().response.minutes_used).toBe(2.5);
    });
  });

  describe('PUT /v2/workspace', () => {
    it('updates name and include_timeline_in_webhook', async () => {
      const w = await createWorkspace(t.store, 'editable');
      const res = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: { name: 'Renamed', include_timeline_in_webhook: true },
        key: w.key,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('ok');
      expect(res.json().response).toMatchObject({
        workspace_id: w.id,
        name: 'Renamed',
        include_timeline_in_webhook: true,
        plan: 'enterprise',
        max_concurrent_calls: 10,
      });
      const read = await t.call({ method: 'GET', url: '/v2/workspace', key: w.key });
      expect(read.json().response).toMatchObject({ name: 'Renamed', include_timeline_in_webhook: true });

      const off = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: { include_timeline_in_webhook: false },
        key: w.key,
      });
      expect(off.json().response).toMatchObject({ name: 'Renamed', include_timeline_in_webhook: false });
    });

    it('sets, keeps and clears default_agent_id', async () => {
      const w = await createWorkspace(t.store, 'fallback');
      const agentId = await newAgent(w.key);
      const set = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: { default_agent_id: agentId },
        key: w.key,
      });
      expect(set.statusCode).toBe(200);
      expect(set.json().response.default_agent_id).toBe(agentId);

      const other = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: { name: 'Still' },
        key: w.key,
      });
      expect(other.json().response.default_agent_id).toBe(agentId);

      const cleared = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: { default_agent_id: null },
        key: w.key,
      });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json().response.default_agent_id).toBeNull();
      const read = await t.call({ method: 'GET', url: '/v2/workspace', key: w.key });
      expect(read.json().response.default_agent_id).toBeNull();
    });

    it("rejects another workspace's agent or an unknown one as default_agent_id", async () => {
      const w = await createWorkspace(t.store, 'strict');
      const mine = await newAgent(w.key);
      await t.call({ method: 'PUT', url: '/v2/workspace', payload: { default_agent_id: mine }, key: w.key });

      const theirs = await newAgent(t.other.key);
      for (const id of [theirs, '00000000-0000-4000-8000-000000000000']) {
        const res = await t.call({
          method: 'PUT',
          url: '/v2/workspace',
          payload: { default_agent_id: id, name: 'Should not apply' },
          key: w.key,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().detail.status).toBe('error');
        expect(res.json().detail.description).toContain('default_agent_id');
      }
      const read = await t.call({ method: 'GET', url: '/v2/workspace', key: w.key });
      expect(read.json().response).toMatchObject({ default_agent_id: mine, name: 'strict' });
    });

    it('rejects bad field types with 400 naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ name: '' }, 'name'],
        [{ name: 42 }, 'name'],
        [{ include_timeline_in_webhook: 'yes' }, 'include_timeline_in_webhook'],
        [{ default_agent_id: '' }, 'default_agent_id'],
        [{ default_agent_id: 7 }, 'default_agent_id'],
      ];
      for (const [payload, field] of cases) {
        const res = await t.call({ method: 'PUT', url: '/v2/workspace', payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().detail.category).toBe('validation');
        expect(res.json().detail.description).toContain(field);
      }
    });

    it('does not let the body change plan, limits or usage', async () => {
      const w = await createWorkspace(t.store, 'fixed', 'standard', 2);
      const res = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: { plan: 'enterprise', max_concurrent_calls: 500, minutes_used: 0, workspace_id: t.ws.id },
        key: w.key,
      });
      // Unknown top-level fields are ignored (WIRE.md section 1), so these are no-ops.
      expect(res.statusCode).toBe(200);
      expect(res.json().response).toMatchObject({
        workspace_id: w.id,
        plan: 'standard',
        max_concurrent_calls: 2,
      });
    });
  });

  describe('webhook secret', () => {
    it('reads the secret, rotates it, and reads the new one', async () => {
      const w = await createWorkspace(t.store, 'hooks');
      const first = await t.call({ method: 'GET', url: '/v2/webhook_secret', key: w.key });
      expect(first.statusCode).toBe(200);
      expect(first.json().status).toBe('ok');
      const secret = first.json().response.webhook_secret as string;
      expect(secret).toMatch(WHSEC);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

      const again = await t.call({ method: 'GET', url: '/v2/webhook_secret', key: w.key });
      expect(again.json().response.webhook_secret).toBe(secret);

      const rotated = await t.call({ method: 'POST', url: '/v2/webhook_secret/rotate', key: w.key });
      expect(rotated.statusCode).toBe(200);
      const next = rotated.json().response.webhook_secret as string;
      expect(next).toMatch(WHSEC);
      expect(next).not.toBe(secret);

      const read = await t.call({ method: 'GET', url: '/v2/webhook_secret', key: w.key });
      expect(read.json().response.webhook_secret).toBe(next);
    });

    it('is per workspace', async () => {
      const mine = await t.call({ method: 'GET', url: '/v2/webhook_secret' });
      const theirs = await t.call({ method: 'GET', url: '/v2/webhook_secret', key: t.other.key });
      expect(mine.json().response.webhook_secret).not.toBe(theirs.json().response.webhook_secret);
      await t.call({ method: 'POST', url: '/v2/webhook_secret/rotate' });
      const theirsAfter = await t.call({ method: 'GET', url: '/v2/webhook_secret', key: t.other.key });
      expect(theirsAfter.json().response.webhook_secret).toBe(theirs.json().response.webhook_secret);
    });

    it('rotate accepts a JSON body or none', async () => {
      const withBody = await t.call({ method: 'POST', url: '/v2/webhook_secret/rotate', payload: {} });
      expect(withBody.statusCode).toBe(200);
      expect(withBody.json().response.webhook_secret).toMatch(WHSEC);
    });
  });

  describe('API keys', () => {
    it('creates a key shown once that works at once', async () => {
      const w = await createWorkspace(t.store, 'keys');
      const res = await t.call({ method: 'POST', url: '/v2/api_keys', payload: { name: 'ci' }, key: w.key });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('ok');
      const created = res.json().response;
      expect(Object.keys(created).sort()).toEqual(['api_key', 'created_at', 'id', 'name', 'prefix']);
      expect(created.name).toBe('ci');
      expect(created.created_at).toMatch(ISO);
      expect(created.api_key).not.toBe(w.key);
      expect(created.api_key.startsWith(created.prefix)).toBe(true);
      expect(created.prefix.length).toBeLessThan(created.api_key.length);

      const me = await t.call({ method: 'GET', url: '/v2/workspace', key: created.api_key });
      expect(me.statusCode).toBe(200);
      expect(me.json().response.workspace_id).toBe(w.id);

      const list = await t.call({ method: 'GET', url: '/v2/api_keys', key: w.key });
      expect(list.statusCode).toBe(200);
      const keys = list.json().response.api_keys as Record<string, unknown>[];
      expect(keys).toHaveLength(2);
      for (const k of keys) {
        expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'name', 'prefix']);
        expect(k.created_at).toMatch(ISO);
      }
      expect(keys.find((k) => k.id === created.id)).toEqual({
        id: created.id,
        name: 'ci',
        prefix: created.prefix,
        created_at: created.created_at,
      });
      expect(list.body).not.toContain(created.api_key);
      expect(list.body).not.toContain(w.key);
    });

    it('creates a key without a body or name', async () => {
      const w = await createWorkspace(t.store, 'nameless');
      const none = await t.call({ method: 'POST', url: '/v2/api_keys', key: w.key });
      expect(none.statusCode).toBe(200);
      expect(none.json().response.name).toEqual(expect.any(String));
      const empty = await t.call({ method: 'POST', url: '/v2/api_keys', payload: {}, key: w.key });
      expect(empty.statusCode).toBe(200);
      expect(empty.json().response.api_key).not.toBe(none.json().response.api_key);
      const bad = await t.call({ method: 'POST', url: '/v2/api_keys', payload: { name: '' }, key: w.key });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().detail.description).toContain('name');
    });

    it('lists only its own keys', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/api_keys', key: t.other.key });
      const otherKeys = res.json().response.api_keys as { id: string }[];
      const mine = await t.call({ method: 'GET', url: '/v2/api_keys' });
      const mineIds = (mine.json().response.api_keys as { id: string }[]).map((k) => k.id);
      for (const k of otherKeys) expect(mineIds).not.toContain(k.id);
    });

    it('revokes a key: it gets 401 at once, the others keep working', async () => {
      const w = await createWorkspace(t.store, 'revoker');
      const created = (await t.call({ method: 'POST', url: '/v2/api_keys', key: w.key })).json().response;
      const ok = await t.call({ method: 'GET', url: '/v2/workspace', key: created.api_key });
      expect(ok.statusCode).toBe(200);

      const del = await t.call({ method: 'DELETE', url: `/v2/api_keys/${created.id}`, key: w.key });
      expect(del.statusCode).toBe(200);
      expect(del.json().status).toBe('ok');

      const revoked = await t.call({ method: 'GET', url: '/v2/workspace', key: created.api_key });
      expect(revoked.statusCode).toBe(401);
      expect(revoked.json().detail).toMatchObject({
        category: 'auth',
        description: 'Unauthorized: Invalid or expired token.',
      });
      const still = await t.call({ method: 'GET', url: '/v2/workspace', key: w.key });
      expect(still.statusCode).toBe(200);

      const list = await t.call({ method: 'GET', url: '/v2/api_keys', key: w.key });
      expect(list.json().response.api_keys.map((k: { id: string }) => k.id)).not.toContain(created.id);
      const again = await t.call({ method: 'DELETE', url: `/v2/api_keys/${created.id}`, key: w.key });
      expect(again.statusCode).toBe(404);
    });

    it('a key can revoke itself while another remains', async () => {
      const w = await createWorkspace(t.store, 'self');
      const spare = (await t.call({ method: 'POST', url: '/v2/api_keys', key: w.key })).json().response;
      const list = await t.call({ method: 'GET', url: '/v2/api_keys', key: w.key });
      const original = (list.json().response.api_keys as { id: string }[]).find((k) => k.id !== spare.id);
      const del = await t.call({ method: 'DELETE', url: `/v2/api_keys/${original?.id}`, key: w.key });
      expect(del.statusCode).toBe(200);
      expect((await t.call({ method: 'GET', url: '/v2/workspace', key: w.key })).statusCode).toBe(401);
      expect((await t.call({ method: 'GET', url: '/v2/workspace', key: spare.api_key })).statusCode).toBe(
        200,
      );
    });

    it('refuses to revoke the last key', async () => {
      const w = await createWorkspace(t.store, 'lonely');
      const list = await t.call({ method: 'GET', url: '/v2/api_keys', key: w.key });
      const keys = list.json().response.api_keys as { id: string }[];
      expect(keys).toHaveLength(1);
      const res = await t.call({ method: 'DELETE', url: `/v2/api_keys/${keys[0]?.id}`, key: w.key });
      expect(res.statusCode).toBe(400);
      expect(res.json().detail.status).toBe('error');
      expect(res.json().detail.description).toContain('last');
      const still = await t.call({ method: 'GET', url: '/v2/workspace', key: w.key });
      expect(still.statusCode).toBe(200);
    });

    it('keeps a key when the last two are revoked at the same time', async () => {
      for (let round = 0; round < 5; round++) {
        const w = await createWorkspace(t.store, `race ${round}`);
        const spare = (await t.call({ method: 'POST', url: '/v2/api_keys', key: w.key })).json().response;
        const list = await t.call({ method: 'GET', url: '/v2/api_keys', key: w.key });
        const ids = (list.json().response.api_keys as { id: string }[]).map((k) => k.id);
        expect(ids).toHaveLength(2);
        const results = await Promise.all(
          ids.map((id) => t.call({ method: 'DELETE', url: `/v2/api_keys/${id}`, key: spare.api_key })),
        );
        // The loser is refused as the last key (400), or, when the winner revoked the very key the
        // loser signed with before the loser was authenticated, turned away as unauthorised (401).
        const codes = results.map((r) => r.statusCode).sort();
        expect(codes[0]).toBe(200);
        expect([400, 401]).toContain(codes[1]);
        expect(await t.store.apiKeys.list(w.id)).toHaveLength(1);
      }
    });

    it("returns 404 for an unknown key id or another workspace's", async () => {
      const w = await createWorkspace(t.store, 'guarded');
      await t.call({ method: 'POST', url: '/v2/api_keys', key: w.key });
      const unknown = await t.call({
        method: 'DELETE',
        url: '/v2/api_keys/00000000-0000-4000-8000-000000000000',
        key: w.key,
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().detail.category).toBe('not_found');

      const theirs = await t.call({ method: 'GET', url: '/v2/api_keys', key: t.other.key });
      const theirId = (theirs.json().response.api_keys as { id: string }[])[0]?.id;
      expect(theirId).toEqual(expect.any(String));
      const cross = await t.call({ method: 'DELETE', url: `/v2/api_keys/${theirId}`, key: w.key });
      expect(cross.statusCode).toBe(404);
      expect(cross.json().detail.category).toBe('not_found');
      const stillTheirs = await t.call({ method: 'GET', url: '/v2/workspace', key: t.other.key });
      expect(stillTheirs.statusCode).toBe(200);
    });
  });
});
