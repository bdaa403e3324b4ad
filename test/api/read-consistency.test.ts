import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../src/api/index.ts';
import { silentLogger } from '../../src/core/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Agent reads are cached per process (src/api/assistants/read-cache.ts). Two API instances over
// one store stand for two processes: whatever one writes, the other reads at once.

forEachStore('agent reads across processes', (target) => {
  let t: TestApi;
  let second: FastifyInstance;
  const auth = () => ({ authorization: `Bearer ${t.ws.key}` });
  const readOne = async (api: FastifyInstance, id: string) =>
    api.inject({ method: 'GET', url: `/v2/assistants/${id}`, headers: auth() });
  const readList = async (api: FastifyInstance) =>
    (await api.inject({ method: 'GET', url: '/v2/assistants/?limit=5', headers: auth() })).json().response;

  beforeAll(async () => {
    t = await createTestApi(target);
    second = await buildApi({
      store: t.store,
      models: t.models,
      // What another process's composition root would build (src/app.ts); shared here.
      services: t.engine.services,
      chats: t.engine.chats,
      logger: silentLogger(),
      publicUrl: 'http://127.0.0.1:8081',
      bodyLimitBytes: 1024 * 1024,
    });
    await second.ready();
  });
  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('serves every write made elsewhere on the next read', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ name: 'v1' }),
    });
    const id = created.json().response.model_id as string;
    // Warm the first instance's cache for both reads.
    expect((await readOne(t.api, id)).json().response.assistants[0].name).toBe('v1');
    expect((await readList(t.api)).pagination.total_records).toBe(1);
    expect((await readOne(t.api, id)).json().response.assistants[0].name).toBe('v1');

    const update = await second.inject({
      method: 'PUT',
      url: `/v2/assistants/${id}`,
      headers: auth(),
      payload: { name: 'v2', agent: { language: 'fr-FR' } },
    });
    expect(update.statusCode).toBe(200);
    const afterUpdate = (await readOne(t.api, id)).json().response.assistants[0];
    expect(afterUpdate.name).toBe('v2');
    expect(afterUpdate.agent.language).toBe('fr-FR');
    expect((await readList(t.api)).assistants[0].name).toBe('v2');

    await second.inject({
      method: 'POST',
      url: '/v2/custom-numbers',
      headers: auth(),
      payload: { phone_number: '+14155550177', provider: 'sim' },
    });
    await second.inject({
      method: 'PUT',
      url: `/v2/assistants/${id}/phone_numbers`,
      headers: auth(),
      payload: { phone_number_slugs: ['14155550177'] },
    });
    expect((await readOne(t.api, id)).json().response.assistants[0].attached_phone_numbers).toHaveLength(1);
    await second.inject({ method: 'DELETE', url: '/v2/numbers/14155550177', headers: auth() });
    expect((await readOne(t.api, id)).json().response.assistants[0].attached_phone_numbers).toEqual([]);

    await second.inject({ method: 'POST', url: '/v2/assistants', headers: auth(), payload: agentBody() });
    expect((await readList(t.api)).pagination.total_records).toBe(2);

    await second.inject({ method: 'DELETE', url: `/v2/assistants/${id}`, headers: auth() });
    const gone = await readOne(t.api, id);
    expect(gone.statusCode).toBe(400);
    expect(gone.json().detail.category).toBe('not_found');
    expect((await readList(t.api)).pagination.total_records).toBe(1);
  });

  it('answers a repeated read with the same bytes and content type', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ name: 'same' }),
    });
    const id = created.json().response.model_id as string;
    for (const url of [`/v2/assistants/${id}`, '/v2/assistants/?limit=3&offset=0']) {
      const first = await t.api.inject({ method: 'GET', url, headers: auth() });
      const again = await t.api.inject({ method: 'GET', url, headers: auth() });
      expect(first.statusCode).toBe(200);
      expect(again.body).toBe(first.body);
      expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    }
  });

  it('never shows one workspace a cached read of another', async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ name: 'mine' }),
    });
    const id = created.json().response.model_id as string;
    expect((await readOne(t.api, id)).statusCode).toBe(200);
    const foreign = await t.api.inject({
      method: 'GET',
      url: `/v2/assistants/${id}`,
      headers: { authorization: `Bearer ${t.other.key}` },
    });
    expect(foreign.statusCode).toBe(400);
    const otherList = await t.api.inject({
      method: 'GET',
      url: '/v2/assistants/?limit=5',
      headers: { authorization: `Bearer ${t.other.key}` },
    });
    expect(otherList.json().response.pagination.total_records).toBe(0);
  });
});
