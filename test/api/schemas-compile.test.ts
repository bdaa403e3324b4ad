import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteTarget } from '../../src/store/testing/index.ts';
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
});
