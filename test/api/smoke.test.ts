import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

forEachStore('api smoke', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  it('creates an agent and reads it back', async () => {
    const created = await t.call({ method: 'POST', url: '/v2/assistants', payload: agentBody() });
    expect(created.statusCode).toBe(200);
    const id = created.json().response.model_id as string;
    const read = await t.call({ method: 'GET', url: `/v2/assistants/${id}` });
    expect(read.statusCode).toBe(200);
    expect(read.json().response.assistants[0]).toMatchObject({ model_id: id, name: 'Sales agent' });
  });
});
