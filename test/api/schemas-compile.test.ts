import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTarget } from '../../src/store/testing/index.ts';
import { SchemaCompiles } from '../../src/api/index.ts';
import { agentBody, createTestApi, type TestApi } from '../helpers.ts';

// Route schemas are compiled on each route's first use (src/api/lazy-schemas.ts). Built eagerly,
// every validator and serializer of every route compiles at start: a schema that cannot compile
// fails here, not on some route's first request in production. Both builds answer alike.

describe('route schemas', () => {
  let eager: TestApi;
  let lazy: TestApi;
  let routes = 0;
  beforeAll(async () => {
    eager = await createTestApi(sqliteTarget, { eagerSchemas: true });
    routes = eager.api.printRoutes({ commonPrefix: false }).split('\n').filter(Boolean).length;
    lazy = await createTestApi(sqliteTarget);
  });
  afterAll(async () => {
    await eager?.close();
    await lazy?.close();
  });

  it('all compile when built eagerly', () => {
    expect(routes).toBeGreaterThan(80);
  });

  it('serialize and validate the same built lazily as eagerly', async () => {
    for (const t of [eager, lazy]) {
      const bad = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody({ type: 7 }) });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().detail.errors[0].loc).toEqual(['body', 'type']);
    }
    const bodies: unknown[] = [];
    for (const t of [eager, lazy]) {
      const created = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() });
      const id = created.json().response.model_id as string;
      const read = await t.call({ method: 'GET', url: `/v2/assistants/${id}` });
      expect(read.statusCode).toBe(200);
      const agent = read.json().response.assistants[0] as Record<string, unknown>;
      bodies.push(Object.keys(agent).sort());
      // A field no schema names is not serialized, lazily as eagerly.
      expect(agent).not.toHaveProperty('workspaceId');
    }
    expect(bodies[1]).toEqual(bodies[0]);
  });

  it('built lazily, compile in the background once the server listens', async () => {
    const compiles = new SchemaCompiles();
    const t = await createTestApi(sqliteTarget, { schemaCompiles: compiles });
    try {
      const before = compiles.pending;
      expect(before).toBeGreaterThan(routes); // a validator or serializer per route, most more
      const url = await t.api.listen({ port: 0, host: '127.0.0.1' });
      // Requests are answered between the warm-up's compiles.
      const list = await fetch(`${url}/v2/assistants`, { headers: { authorization: `Bearer ${t.ws.key}` } });
      expect(list.status).toBe(200);
      expect(compiles.pending).toBeGreaterThan(0);
      await expect.poll(() => compiles.pending, { timeout: 60_000, interval: 50 }).toBe(0);
    } finally {
      await t.close();
    }
  });
});
