import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { MISSING_ID, expectErrorBody, expectFieldError, type Json } from '../assertions.ts';

// Many HTTP clients send `content-type: application/json` on every request of a session, with an
// empty body on DELETEs and body-less POSTs. Every operation of the OpenAPI document that takes no
// body must treat that as no body (never "malformed JSON"); operations that take one answer their
// schema's 400 naming `body`. A non-empty malformed body is still a 400.

const JSON_TYPE = { 'content-type': 'application/json' };

interface Operation {
  method: string;
  path: string;
  hasBody: boolean;
}

/** Path parameters filled with ids that exist nowhere (a 404 or 400 is a fine answer here). */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, MISSING_ID);
}

forEachStore('compat: body-less requests with a JSON content type', (target) => {
  let t: TestApi;
  let operations: Operation[] = [];

  beforeAll(async () => {
    t = await createTestApi(target);
    const doc = (await t.call({ method: 'GET', url: '/v2/openapi.json', key: null })).json() as {
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    };
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          hasBody: op.requestBody !== undefined,
        })),
    );
  });
  afterAll(() => t.close());

  it('the document lists the body-less operations real clients call', () => {
    const bodyless = operations.filter((o) => !o.hasBody).map((o) => `${o.method} ${o.path}`);
    for (const op of [
      'DELETE /v2/assistants/{model_id}',
      'POST /v2/calls/batch/{batch_call_id}/pause',
      'POST /v2/calls/batch/{batch_call_id}/resume',
      'POST /v2/calls/batch/{batch_call_id}/cancel',
      'DELETE /v2/chat/{chat_id}',
      'GET /v2/calls',
    ]) {
      expect(bodyless).toContain(op);
    }
  });

  it('no operation answers "malformed JSON" to an empty JSON body', async () => {
    expect(operations.length).toBeGreaterThan(50);
    const refused: string[] = [];
    for (const op of operations) {
      const res = await t.call({
        method: op.method as 'GET',
        url: concrete(op.path),
        headers: JSON_TYPE,
        payload: '',
      });
      expect(res.statusCode, `${op.method} ${op.path}: ${res.body}`).toBeLessThan(500);
      const body = res.body === '' ? {} : (res.json() as { detail?: Json });
      const errors = (body.detail?.errors ?? []) as { type: string; loc: unknown[] }[];
      if (errors.some((e) => e.type === 'json_invalid')) refused.push(`${op.method} ${op.path}`);
      const aboutBody = errors.length > 0 && errors.every((e) => e.loc[0] === 'body');
      if (op.hasBody && res.statusCode === 400 && aboutBody) {
        // An operation that needs a body says so, naming it.
        expect(String(body.detail?.description), `${op.method} ${op.path}`).toMatch(/body/);
      }
    }
    expect(refused).toEqual([]);
  });

  it('the published flows work with the header and no body', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: { type: 'outbound', name: 'Compat', agent: { prompt: 'Hi.' } },
    });
    const modelId = created.json().response.model_id as string;
    const read = await t.call({
      method: 'GET',
      url: `/v2/assistants/${modelId}`,
      headers: JSON_TYPE,
      payload: '',
    });
    expect(read.statusCode, read.body).toBe(200);
    const del = await t.call({
      method: 'DELETE',
      url: `/v2/assistants/${modelId}`,
      headers: JSON_TYPE,
      payload: '',
    });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ status: 'ok', response: { answer: 'Agent deleted' } });
    // Whitespace only is no body either.
    const keys = await t.call({ method: 'GET', url: '/v2/assistants/', headers: JSON_TYPE, payload: ' \n' });
    expect(keys.statusCode).toBe(200);
  });

  it('a non-empty malformed body is still a 400, and a required body still named', async () => {
    for (const payload of ['{"a":', 'nope', '[1,']) {
      const res = await t.call({ method: 'POST', url: '/v2/assistants', headers: JSON_TYPE, payload });
      const d = expectErrorBody(res, 400, 'validation');
      expect(d.description).toContain('malformed JSON');
    }
    expectFieldError(
      await t.call({ method: 'POST', url: '/v2/assistants', headers: JSON_TYPE, payload: '' }),
      ['body'],
    );
    expectFieldError(
      await t.call({ method: 'POST', url: '/v2/assistants', headers: JSON_TYPE, payload: 'null' }),
      ['body'],
    );
  });

  describe('the limit a body over it names', () => {
    it('names the route limit of a batch, and the general limit elsewhere', async () => {
      const small = await createTestApi(target, { bodyLimitBytes: 1024 });
      try {
        const big = JSON.stringify({ name: 'x'.repeat(2000) });
        const general = expectErrorBody(
          await small.call({ method: 'POST', url: '/v2/subaccounts', headers: JSON_TYPE, payload: big }),
          400,
          'validation',
        );
        expect(general.description).toContain('1024 bytes');
        const batch = JSON.stringify({
          tasks: [{ to_phone_number: '+14155550101' }],
          name: 'x'.repeat(33 << 20),
        });
        const res = await small.call({
          method: 'POST',
          url: '/v2/calls/batch',
          headers: JSON_TYPE,
          payload: batch,
        });
        const d = expectErrorBody(res, 400, 'validation');
        expect(d.description).toContain(`${32 * 1024 * 1024} bytes`);
        expect(d.description).not.toContain('1024 bytes');
      } finally {
        await small.close();
      }
    });
  });
});
