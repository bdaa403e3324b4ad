import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Bearer-key authentication (spec "Authentication", WIRE.md section 1).

const MISSING = 'Missing or invalid Authorization header';
const INVALID = 'Unauthorized: Invalid or expired token.';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const SOME_ID = '00000000-0000-4000-8000-000000000000';

/** Every /v2 operation, with a body where it takes one. */
const V2_ROUTES: { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; url: string; payload?: object }[] = [
  { method: 'GET', url: '/v2/assistants/' },
  { method: 'GET', url: '/v2/assistants' },
  { method: 'POST', url: '/v2/assistants', payload: agentBody() },
  { method: 'GET', url: `/v2/assistants/${SOME_ID}` },
  { method: 'PUT', url: `/v2/assistants/${SOME_ID}`, payload: { name: 'x' } },
  { method: 'DELETE', url: `/v2/assistants/${SOME_ID}` },
  {
    method: 'PUT',
    url: `/v2/assistants/${SOME_ID}/phone_numbers`,
    payload: { phone_numbers: ['+14155550100'] },
  },
  { method: 'DELETE', url: `/v2/assistants/${SOME_ID}/phone_numbers/14155550100` },
  { method: 'POST', url: '/v2/custom-numbers', payload: { phone_number: '+14155550100', provider: 'sim' } },
  { method: 'GET', url: '/v2/numbers' },
  { method: 'GET', url: '/v2/numbers/14155550100' },
  { method: 'PATCH', url: '/v2/numbers/14155550100', payload: { friendly_name: 'x' } },
  { method: 'DELETE', url: '/v2/numbers/14155550100' },
  { method: 'POST', url: '/v2/subaccounts', payload: { name: 'x' } },
  { method: 'GET', url: '/v2/subaccounts' },
  { method: 'GET', url: `/v2/subaccounts/${SOME_ID}` },
  { method: 'PUT', url: `/v2/subaccounts/${SOME_ID}`, payload: { name: 'x' } },
  { method: 'DELETE', url: `/v2/subaccounts/${SOME_ID}` },
  { method: 'GET', url: '/v2/workspace' },
  { method: 'PUT', url: '/v2/workspace', payload: { name: 'x' } },
  { method: 'GET', url: '/v2/webhook_secret' },
  { method: 'POST', url: '/v2/webhook_secret/rotate' },
  { method: 'GET', url: '/v2/api_keys' },
  { method: 'POST', url: '/v2/api_keys', payload: { name: 'x' } },
  { method: 'DELETE', url: `/v2/api_keys/${SOME_ID}` },
];

forEachStore('auth', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  function expect401(
    res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
    description: string,
  ): void {
    expect(res.statusCode).toBe(401);
    const body = res.json() as { detail: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(['detail']);
    expect(body.detail).toEqual({
      status: 'error',
      description,
      timestamp: expect.stringMatching(ISO),
      request_id: expect.any(String),
      category: 'auth',
    });
    expect(body.detail.request_id).toBe(res.headers['x-request-id']);
  }

  describe('missing or malformed Authorization header', () => {
    it('401s without the header, with the exact description and error body', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/assistants/', key: null });
      expect401(res, MISSING);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it.each([
      ['Basic x', 'Basic x'],
      ['Basic with valid-looking credentials', 'Basic dXNlcjpwYXNz'],
      ['Bearer without a token', 'Bearer'],
      ['Bearer and a space', 'Bearer '],
      ['an empty header', ''],
      ['a token without a scheme', 'pk_abcdefabcdef'],
      ['Bearer with two tokens', 'Bearer abc def'],
      ['Token scheme', 'Token abc'],
    ])('401s for %s', async (_label, header) => {
      const res = await t.call({
        method: 'GET',
        url: '/v2/assistants/',
        key: null,
        headers: { authorization: header },
      });
      expect401(res, MISSING);
    });

    it('401s for the valid key under another scheme', async () => {
      const res = await t.call({
        method: 'GET',
        url: '/v2/assistants/',
        key: null,
        headers: { authorization: `Basic ${t.ws.key}` },
      });
      expect401(res, MISSING);
    });
  });

  describe('unknown keys', () => {
    it.each([
      ['a made-up key', 'pk_not-a-real-key'],
      ['a real key with a character changed', 'CHANGED'],
      ['a prefix of a real key', 'PREFIX'],
      ['a real key with a suffix', 'SUFFIX'],
    ])('401s for %s', async (_label, kind) => {
      const key =
        kind === 'CHANGED'
          ? `${t.ws.key.slice(0, -1)}${t.ws.key.endsWith('A') ? 'B' : 'A'}`
          : kind === 'PREFIX'
            ? t.ws.key.slice(0, 12)
            : kind === 'SUFFIX'
              ? `${t.ws.key}x`
              : kind;
      const res = await t.call({ method: 'GET', url: '/v2/assistants/', key });
      expect401(res, INVALID);
    });
  });

  describe('valid keys', () => {
    it('GET /v2/assistants/ with a valid key is 200 (the key probe)', async () => {
      const res = await t.call({ method: 'GET', url: '/v2/assistants/' });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('ok');
      expect(res.json().response.pagination).toMatchObject({ limit: 20, offset: 0 });
      expect(Array.isArray(res.json().response.assistants)).toBe(true);
    });

    it('accepts the scheme in any case and surrounding whitespace', async () => {
      for (const header of [`bearer ${t.ws.key}`, `BEARER ${t.ws.key}`, `Bearer   ${t.ws.key}  `]) {
        const res = await t.call({
          method: 'GET',
          url: '/v2/workspace',
          key: null,
          headers: { authorization: header },
        });
        expect(res.statusCode, header).toBe(200);
        expect(res.json().response.workspace_id).toBe(t.ws.id);
      }
    });

    it("scopes the request to the key's workspace", async () => {
      const mine = await t.call({ method: 'GET', url: '/v2/workspace' });
      const theirs = await t.call({ method: 'GET', url: '/v2/workspace', key: t.other.key });
      expect(mine.json().response.workspace_id).toBe(t.ws.id);
      expect(theirs.json().response.workspace_id).toBe(t.other.id);
    });
  });

  describe('every /v2 operation', () => {
    it.each(V2_ROUTES)('$method $url 401s without a key and with an unknown key', async (route) => {
      const missing = await t.call({ ...route, key: null });
      expect401(missing, MISSING);
      const unknown = await t.call({ ...route, key: 'pk_unknown' });
      expect401(unknown, INVALID);
    });

    it('401s before any write happens', async () => {
      const before = await t.call({ method: 'GET', url: '/v2/subaccounts' });
      await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: 'sneaky' }, key: null });
      await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 'sneaky' },
        key: 'pk_unknown',
      });
      const after = await t.call({ method: 'GET', url: '/v2/subaccounts' });
      expect(after.json().response.pagination.total_records).toBe(
        before.json().response.pagination.total_records,
      );
    });
  });

  describe('401 comes before validation', () => {
    it('a bad body without a key is 401, not 400', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: { type: 'nope' },
        key: null,
      });
      expect401(res, MISSING);
    });

    it('a bad body with an unknown key is 401', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 7 },
        key: 'pk_unknown',
      });
      expect401(res, INVALID);
    });

    it('malformed JSON and a wrong content type without a key are 401', async () => {
      const json = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: '{"type":',
        headers: { 'content-type': 'application/json' },
        key: null,
      });
      expect401(json, MISSING);
      const text = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: 'hello',
        headers: { 'content-type': 'text/plain' },
        key: null,
      });
      expect401(text, MISSING);
    });

    it('bad query and path parameters without a key are 401', async () => {
      expect401(await t.call({ method: 'GET', url: '/v2/subaccounts?limit=0', key: null }), MISSING);
      expect401(await t.call({ method: 'GET', url: `/v2/subaccounts/${SOME_ID}`, key: null }), MISSING);
    });
  });

  describe('unauthenticated endpoints', () => {
    it.each(['/healthz', '/readyz', '/metrics', '/v2/openapi.json'])(
      '%s works without a key',
      async (url) => {
        const res = await t.call({ method: 'GET', url, key: null });
        expect(res.statusCode).toBe(200);
      },
    );

    it('they also ignore a bad key', async () => {
      const res = await t.call({ method: 'GET', url: '/healthz', key: 'pk_unknown' });
      expect(res.statusCode).toBe(200);
    });

    it('/docs works without a key', async () => {
      let res = await t.call({ method: 'GET', url: '/docs', key: null });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        const location = String(res.headers.location);
        res = await t.call({
          method: 'GET',
          url: location.startsWith('/') ? location : `/docs/${location}`,
          key: null,
        });
      }
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    });
  });
});
