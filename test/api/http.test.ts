import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Cross-cutting HTTP behaviour (WIRE.md section 1): framework errors as 400s, the error body,
// request ids, health, metrics and the OpenAPI document.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Detail {
  status: string;
  description: string;
  timestamp: string;
  request_id: string;
  category: string;
  errors?: { loc: (string | number)[]; msg: string; type: string }[];
}

type Res = { statusCode: number; headers: Record<string, unknown>; body: string; json(): unknown };

function detailOf(res: Res): Detail {
  const body = res.json() as { detail: Detail };
  expect(Object.keys(body)).toEqual(['detail']);
  expect(body.detail.status).toBe('error');
  expect(body.detail.timestamp).toMatch(ISO);
  expect(body.detail.request_id).toBe(res.headers['x-request-id']);
  return body.detail;
}

forEachStore('http', (target) => {
  let t: TestApi;
  let agentId: string;
  let subaccountId: string;
  beforeAll(async () => {
    t = await createTestApi(target);
    const agent = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() });
    agentId = agent.json().response.model_id as string;
    const sub = await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: 'fuzz' } });
    subaccountId = sub.json().response.subaccount_id as string;
  });
  afterAll(() => t.close());

  describe('request bodies', () => {
    it('malformed JSON is a 400 naming the body', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: '{"type":',
        headers: JSON_HEADERS,
      });
      expect(res.statusCode).toBe(400);
      const detail = detailOf(res);
      expect(detail.category).toBe('validation');
      expect(detail.description).toMatch(/^body/);
      expect(detail.description).toContain('JSON');
      expect(detail.errors?.[0]?.loc).toEqual(['body']);
    });

    it('an empty body with a JSON content type is a 400', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: '',
        headers: JSON_HEADERS,
      });
      expect(res.statusCode).toBe(400);
      const detail = detailOf(res);
      expect(detail.category).toBe('validation');
      expect(detail.description).toContain('body');
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
      'content type %s is a 400 naming content-type (not 415)',
      async (type) => {
        const res = await t.call({
          method: 'POST',
          url: '/v2/subaccounts',
          payload: type === 'text/plain' ? '{"name":"x"}' : 'name=x',
          headers: { 'content-type': type },
        });
        expect(res.statusCode).toBe(400);
        const detail = detailOf(res);
        expect(detail.category).toBe('validation');
        expect(detail.description).toContain('content-type');
        expect(detail.errors?.[0]?.loc).toEqual(['header', 'content-type']);
      },
    );

    it('a body without a content type is a 400 naming content-type', async () => {
      const res = await t.api.inject({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: Buffer.from('{"name":"x"}'),
        headers: { authorization: `Bearer ${t.ws.key}` },
      });
      expect(res.statusCode).toBe(400);
      expect(detailOf(res).description).toContain('content-type');
    });

    it('a content-length that does not match the body is a 400', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: '{"name":"x"}',
        headers: { ...JSON_HEADERS, 'content-length': '3' },
      });
      expect(res.statusCode).toBe(400);
      expect(detailOf(res).description).toContain('content-length');
    });

    it('JSON with a charset parameter is accepted', async () => {
      const res = await t.call({
        method: 'PUT',
        url: '/v2/workspace',
        payload: '{"name":"main"}',
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      expect(res.statusCode).toBe(200);
    });

    it('a JSON body with a prototype-polluting key is refused', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: '{"name":"x","__proto__":{"isAdmin":true}}',
        headers: JSON_HEADERS,
      });
      expect(res.statusCode).toBe(400);
      expect(detailOf(res).category).toBe('validation');
    });

    it('wrong types are 400s naming every bad field', async () => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: { name: 5, max_concurrent_calls: 'many', plan: 'gold' },
      });
      expect(res.statusCode).toBe(400);
      const detail = detailOf(res);
      expect(detail.category).toBe('validation');
      const locs = detail.errors?.map((e) => e.loc.join('.'));
      expect(locs).toEqual(expect.arrayContaining(['body.name', 'body.max_concurrent_calls', 'body.plan']));
      for (const field of ['name', 'max_concurrent_calls', 'plan'])
        expect(detail.description).toContain(field);
    });

    it('a NUL character in a string is a 400 on every dialect', async () => {
      const res = await t.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: 'a\u0000b' } });
      expect(res.statusCode).toBe(400);
      const detail = detailOf(res);
      expect(detail.category).toBe('validation');
      expect(detail.errors?.[0]?.loc).toEqual(['body', 'name']);
      const path = await t.call({ method: 'GET', url: '/v2/subaccounts/a%00b' });
      expect(path.statusCode).toBe(400);
      expect(detailOf(path).errors?.[0]?.loc).toEqual(['path', 'subaccount_id']);
    });

    it('a lone UTF-16 surrogate, in a value or a key, is a 400 on every dialect', async () => {
      const send = (json: string) =>
        t.call({
          method: 'PUT',
          url: `/v2/assistants/${agentId}`,
          headers: { 'content-type': 'application/json' },
          payload: json,
        });
      const inValue = await send('{"agent":{"prompt":"hi \\ud800 there"}}');
      expect(inValue.statusCode).toBe(400);
      expect(detailOf(inValue).errors?.[0]?.loc).toEqual(['body', 'agent', 'prompt']);
      const inKey = await send('{"agent":{"x\\udc00":"v"}}');
      expect(inKey.statusCode).toBe(400);
      // A well-formed pair (an emoji written as escapes) is fine.
      const pair = await send('{"agent":{"prompt":"hi \\ud83d\\ude00"}}');
      expect(pair.statusCode).toBe(200);
      const read = await t.call({ method: 'GET', url: `/v2/assistants/${agentId}` });
      expect(read.json().response.assistants[0].agent.prompt).toBe('hi \u{1F600}');
    });

    it('JSON nested within the depth limit is stored', async () => {
      let nested: unknown = 'leaf';
      for (let i = 0; i < 20; i++) nested = { n: nested };
      const res = await t.call({
        method: 'PUT',
        url: `/v2/assistants/${agentId}`,
        payload: { agent: { prompt: 'p', extra: nested } },
      });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('body size limit', () => {
    let small: TestApi;
    beforeAll(async () => {
      small = await createTestApi(target, { bodyLimitBytes: 2048 });
    });
    afterAll(() => small.close());

    it('a body over the limit is a 400 (not 413)', async () => {
      const res = await small.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: JSON.stringify({ name: 'x'.repeat(3000) }),
        headers: JSON_HEADERS,
      });
      expect(res.statusCode).toBe(400);
      const detail = detailOf(res);
      expect(detail.category).toBe('validation');
      expect(detail.description).toContain('2048');
      expect(detail.errors?.[0]?.loc).toEqual(['body']);
    });

    it('a body just under the limit is parsed and validated', async () => {
      const payload = JSON.stringify({ name: 'x'.repeat(1900) });
      expect(Buffer.byteLength(payload)).toBeLessThan(2048);
      const res = await small.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload,
        headers: JSON_HEADERS,
      });
      expect(res.statusCode).toBe(400);
      expect(detailOf(res).description).toContain('name');
      expect(detailOf(res).description).not.toContain('2048');
    });

    it('still accepts ordinary bodies', async () => {
      const res = await small.call({ method: 'POST', url: '/v2/subaccounts', payload: { name: 'fits' } });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/v2/nope'],
      ['GET', '/nope'],
      ['POST', '/v2/calls/outbound-test-ws-media/nope'],
      ['PATCH', '/v2/workspace'],
    ] as const)('%s %s is a 404 error body', async (method, url) => {
      const res = await t.call({ method, url });
      expect(res.statusCode).toBe(404);
      const detail = detailOf(res);
      expect(detail.category).toBe('not_found');
      expect(detail.description).toContain(url);
    });
  });

  describe('x-request-id', () => {
    it.each([
      ['a success', { method: 'GET', url: '/v2/workspace' }],
      ['a validation error', { method: 'POST', url: '/v2/subaccounts', payload: {} }],
      ['a 401', { method: 'GET', url: '/v2/workspace', key: null }],
      ['a 404', { method: 'GET', url: '/v2/nope' }],
      ['/healthz', { method: 'GET', url: '/healthz' }],
      ['/metrics', { method: 'GET', url: '/metrics' }],
    ] as const)('is sent on %s, fresh each time', async (_label, options) => {
      const first = await t.call({ ...options });
      const second = await t.call({ ...options });
      expect(first.headers['x-request-id']).toMatch(UUID);
      expect(second.headers['x-request-id']).toMatch(UUID);
      expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    });

    it('echoes a valid incoming id, in the header and the error body', async () => {
      const id = 'client-req.42:abc_DEF';
      const ok = await t.call({ method: 'GET', url: '/v2/workspace', headers: { 'x-request-id': id } });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['x-request-id']).toBe(id);
      const err = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: {},
        headers: { 'x-request-id': id },
      });
      expect(err.statusCode).toBe(400);
      expect(err.headers['x-request-id']).toBe(id);
      expect(detailOf(err).request_id).toBe(id);
      const unauth = await t.call({
        method: 'GET',
        url: '/v2/workspace',
        key: null,
        headers: { 'x-request-id': id },
      });
      expect(detailOf(unauth).request_id).toBe(id);
    });

    it('accepts a 128-character id', async () => {
      const id = 'a'.repeat(128);
      const res = await t.call({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
      expect(res.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['spaces', 'has spaces in it'],
      ['200 characters', 'a'.repeat(200)],
      ['129 characters', 'a'.repeat(129)],
      ['an injected header', 'abc\\r\\nset-cookie: x=1'],
      ['angle brackets', '<script>'],
      ['empty', ''],
    ])('replaces an invalid incoming id (%s) with a fresh UUID', async (_label, id) => {
      const res = await t.call({
        method: 'POST',
        url: '/v2/subaccounts',
        payload: {},
        headers: { 'x-request-id': id },
      });
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.headers['x-request-id']).not.toBe(id);
      expect(detailOf(res).request_id).toBe(res.headers['x-request-id']);
    });
  });

  describe('bad bodies on every write endpoint', () => {
    // Each endpoint with the fields it takes; every junk value is invalid for at least one of them.
    const endpoints = (): { method: 'POST' | 'PUT'; url: string; fields: string[] }[] => [
      { method: 'POST', url: '/v2/assistants', fields: ['type', 'name', 'agent'] },
      { method: 'PUT', url: `/v2/assistants/${agentId}`, fields: ['name', 'agent'] },
      {
        method: 'PUT',
        url: `/v2/assistants/${agentId}/phone_numbers`,
        fields: ['phone_numbers', 'phone_number_slugs'],
      },
      { method: 'POST', url: '/v2/custom-numbers', fields: ['phone_number', 'provider', 'sip'] },
      { method: 'POST', url: '/v2/subaccounts', fields: ['name', 'max_concurrent_calls', 'plan'] },
      {
        method: 'PUT',
        url: `/v2/subaccounts/${subaccountId}`,
        fields: ['name', 'max_concurrent_calls', 'plan', 'minutes_used'],
      },
      {
        method: 'PUT',
        url: '/v2/workspace',
        fields: ['name', 'include_timeline_in_webhook', 'default_agent_id'],
      },
      { method: 'POST', url: '/v2/api_keys', fields: ['name'] },
    ];

    const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

    /** Raw JSON documents that are not an object. */
    const nonObjects = [
      '[]',
      '[{}]',
      'null',
      '0',
      '-1',
      '1e309',
      '"string"',
      'true',
      'false',
      deepArray(500),
    ];

    /** Values for the endpoint's own fields (each body sets all of them to the value). */
    const junkValues = (): [string, string][] => [
      ['null', 'null'],
      ['an empty object', '{}'],
      ['an empty string', '""'],
      ['a negative number', '-1'],
      ['a huge number', '1e308'],
      ['true', 'true'],
      ['a mixed array', '[null, 1, "a", {}, []]'],
      ['a deeply nested object', deepJson(2000)],
      ['a huge string', JSON.stringify('x'.repeat(150_000))],
      ['a prototype-ish object', '{"constructor":{"prototype":{"polluted":true}}}'],
    ];

    it('non-object bodies are 400s', async () => {
      for (const endpoint of endpoints()) {
        for (const payload of nonObjects) {
          const res = await t.call({
            method: endpoint.method,
            url: endpoint.url,
            payload,
            headers: JSON_HEADERS,
          });
          expect(res.statusCode, `${endpoint.method} ${endpoint.url} ${payload.slice(0, 20)}`).toBe(400);
          expect(detailOf(res).category).toBe('validation');
        }
      }
    });

    it('junk field values are 400s', async () => {
      for (const endpoint of endpoints()) {
        for (const [label, value] of junkValues()) {
          const payload = `{${endpoint.fields.map((f) => `"${f}":${value}`).join(',')}}`;
          const res = await t.call({
            method: endpoint.method,
            url: endpoint.url,
            payload,
            headers: JSON_HEADERS,
          });
          expect(res.statusCode, `${endpoint.method} ${endpoint.url} with ${label}`).toBe(400);
          expect(detailOf(res).category).toBe('validation');
        }
      }
    });

    it('deeply nested junk beside valid fields is a 400, not a 500', async () => {
      const deep = deepJson(20_000);
      const bodies: { method: 'POST' | 'PUT'; url: string; payload: string }[] = [
        {
          method: 'POST',
          url: '/v2/assistants',
          payload: `{"type":"outbound","name":"x","agent":{"prompt":"p","junk":${deep}}}`,
        },
        {
          method: 'PUT',
          url: `/v2/assistants/${agentId}`,
          payload: `{"agent":{"prompt":"p","junk":${deep}}}`,
        },
        {
          method: 'POST',
          url: '/v2/custom-numbers',
          payload: `{"phone_number":"+14155550177","provider":"sip","sip":{"host":"h","junk":${deep}}}`,
        },
        { method: 'POST', url: '/v2/subaccounts', payload: `{"name":"x","junk":${deep}}` },
        { method: 'PUT', url: `/v2/subaccounts/${subaccountId}`, payload: `{"junk":${deep}}` },
        { method: 'PUT', url: '/v2/workspace', payload: `{"junk":${deep}}` },
        { method: 'POST', url: '/v2/api_keys', payload: `{"junk":${deep}}` },
      ];
      for (const { method, url, payload } of bodies) {
        const res = await t.call({ method, url, payload, headers: JSON_HEADERS });
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(detailOf(res).category).toBe('validation');
      }
    });

    it('leaves the workspace unchanged and the API working', async () => {
      const ws = await t.call({ method: 'GET', url: '/v2/workspace' });
      expect(ws.statusCode).toBe(200);
      expect(ws.json().response).toMatchObject({ name: 'main', include_timeline_in_webhook: false });
      const sub = await t.call({ method: 'GET', url: `/v2/subaccounts/${subaccountId}` });
      expect(sub.json().response).toMatchObject({ name: 'fuzz', minutes_used: 0 });
      const list = await t.call({ method: 'GET', url: '/v2/subaccounts' });
      expect(list.json().response.pagination.total_records).toBe(1);
    });
  });

  describe('health', () => {
    it('/healthz is 200 {status: ok}', async () => {
      const res = await t.call({ method: 'GET', url: '/healthz', key: null });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    });

    it('/readyz is 200 {status: ready}', async () => {
      const res = await t.call({ method: 'GET', url: '/readyz', key: null });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ready' });
    });
  });

  describe('metrics', () => {
    it('counts requests by route template', async () => {
      await t.call({ method: 'GET', url: '/v2/assistants/' });
      const res = await t.call({ method: 'GET', url: '/metrics', key: null });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toContain('# TYPE parley_http_requests_total counter');
      expect(res.body).toMatch(/^parley_http_requests_total\{[^}]*route="\/v2\/assistants\/"[^}]*\} \d+$/m);
      expect(res.body).toMatch(
        /parley_http_requests_total\{method="GET",route="\/v2\/assistants\/",status="200"\}/,
      );
      expect(res.body).toContain('parley_http_request_duration_seconds_bucket');
    });

    it('counts go up', async () => {
      const count = async () => {
        const text = (await t.call({ method: 'GET', url: '/metrics', key: null })).body;
        const line =
          /^parley_http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)$/m.exec(text);
        return Number(line?.[1] ?? 0);
      };
      const before = await count();
      await t.call({ method: 'GET', url: '/healthz' });
      await t.call({ method: 'GET', url: '/healthz' });
      expect(await count()).toBe(before + 2);
    });

    it('never records a raw URL (phone numbers stay out)', async () => {
      await t.call({ method: 'GET', url: '/v2/numbers/14155550100' });
      await t.call({ method: 'DELETE', url: '/v2/numbers/+14155550100' });
      await t.call({ method: 'GET', url: '/v2/numbers?x=14155550100' });
      await t.call({ method: 'DELETE', url: `/v2/assistants/${agentId}/phone_numbers/14155550100` });
      await t.call({ method: 'GET', url: '/v2/calls/14155550100' });
      const res = await t.call({ method: 'GET', url: '/metrics', key: null });
      expect(res.body).not.toContain('14155550100');
      expect(res.body).toContain('route="/v2/numbers/:slug"');
      expect(res.body).toContain('route="unmatched"');
    });
  });

  describe('OpenAPI and docs', () => {
    const PATHS = [
      '/v2/assistants',
      '/v2/assistants/{model_id}',
      '/v2/assistants/{model_id}/phone_numbers',
      '/v2/assistants/{model_id}/phone_numbers/{phone_number_slug}',
      '/v2/custom-numbers',
      '/v2/numbers',
      '/v2/numbers/{slug}',
      '/v2/subaccounts',
      '/v2/subaccounts/{subaccount_id}',
      '/v2/workspace',
      '/v2/webhook_secret',
      '/v2/webhook_secret/rotate',
      '/v2/api_keys',
      '/v2/api_keys/{key_id}',
    ];

    interface Operation {
      requestBody?: { content: Record<string, { schema: { required?: string[]; properties?: object } }> };
      responses: Record<string, unknown>;
    }
    let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: object };
    beforeAll(async () => {
      const res = await t.call({ method: 'GET', url: '/v2/openapi.json', key: null });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      doc = res.json();
    });

    it('is OpenAPI 3.1.0', () => {
      expect(doc.openapi).toBe('3.1.0');
    });

    it('lists every route with its operations', () => {
      for (const path of PATHS) expect(Object.keys(doc.paths), path).toContain(path);
      const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
      expect(methods('/v2/assistants')).toContain('post');
      expect(methods('/v2/assistants/{model_id}')).toEqual(['delete', 'get', 'put']);
      expect(methods('/v2/subaccounts')).toEqual(['get', 'post']);
      expect(methods('/v2/subaccounts/{subaccount_id}')).toEqual(['delete', 'get', 'put']);
      expect(methods('/v2/numbers/{slug}')).toEqual(['delete', 'get', 'patch']);
      expect(methods('/v2/workspace')).toEqual(['get', 'put']);
      expect(methods('/v2/api_keys')).toEqual(['get', 'post']);
      expect(methods('/v2/api_keys/{key_id}')).toEqual(['delete']);
      expect(methods('/v2/webhook_secret/rotate')).toEqual(['post']);
      const listed = [...Object.keys(doc.paths['/v2/assistants/'] ?? {}), ...methods('/v2/assistants')];
      expect(listed).toContain('get');
    });

    it('documents 401 on every /v2 operation', () => {
      for (const [path, ops] of Object.entries(doc.paths)) {
        if (!path.startsWith('/v2/')) continue;
        for (const [method, op] of Object.entries(ops)) {
          expect(Object.keys(op.responses), `${method} ${path}`).toContain('401');
        }
      }
    });

    it('names the required fields of request bodies', () => {
      const required = (path: string, method: string) =>
        doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema.required ?? [];
      expect(required('/v2/assistants', 'post')).toEqual(expect.arrayContaining(['type', 'name', 'agent']));
      expect(required('/v2/custom-numbers', 'post')).toEqual(['phone_number']);
      expect(required('/v2/subaccounts', 'post')).toEqual(['name']);
      expect(required('/v2/subaccounts/{subaccount_id}', 'put')).toEqual([]);
      const put = doc.paths['/v2/subaccounts/{subaccount_id}']?.put?.requestBody?.content['application/json'];
      expect(Object.keys(put?.schema.properties ?? {})).toEqual(
        expect.arrayContaining(['name', 'max_concurrent_calls', 'plan', 'minutes_used']),
      );
    });

    it('serves /docs as an HTML page', async () => {
      for (const url of ['/docs', '/docs/']) {
        let res = await t.call({ method: 'GET', url, key: null });
        for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
          const location = String(res.headers.location);
          res = await t.call({
            method: 'GET',
            url: location.startsWith('/') ? location : `/docs/${location}`,
            key: null,
          });
        }
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body).toMatch(/<html/i);
      }
    });
  });
});
