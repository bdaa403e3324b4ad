import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import type { Json } from '../assertions.ts';

// Drop-in compatibility of the voices API: a client written for the published API lists voices
// as that API documents it (`workspace` required in the query, with the id of its workspace at
// the vendor, which it keeps when it moves; `limit`, `offset`, `provider`) and reads the fields
// of the published answer, then uses a `voice_id` for an agent. The expected shapes are written
// out here.

const GENDERS = ['male', 'female', 'neutral'];

function expectPublishedVoice(v: Json): void {
  for (const field of ['voice_id', 'name', 'preview', 'workspace', 'provider']) {
    expect(typeof v[field], field).toBe('string');
  }
  expect(v.gender === null || GENDERS.includes(v.gender as string)).toBe(true);
  expect(
    v.languages === null || (Array.isArray(v.languages) && v.languages.every((l) => typeof l === 'string')),
  ).toBe(true);
}

forEachStore('voices, as a client of the published API uses them', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  it('lists voices with the published query and answer', async () => {
    const res = await t.call({
      method: 'GET',
      url: '/v2/voices?workspace=1707312331225x417264227221372700&limit=50&offset=0',
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { status: string; response: { pagination: Json; voices: Json[] } };
    expect(body.status).toBe('ok');
    const { pagination, voices } = body.response;
    for (const field of ['total_records', 'limit', 'offset']) {
      expect(Number.isInteger(pagination[field]), field).toBe(true);
    }
    expect(pagination).toMatchObject({ limit: 50, offset: 0 });
    expect(voices.length).toBe(pagination.total_records);
    expect(voices.length).toBeGreaterThan(0);
    for (const v of voices) expectPublishedVoice(v);
  });

  it('answers the published provider filters (no voices of those vendors here)', async () => {
    for (const provider of ['elevenlabs', 'deepgram', 'synthflow']) {
      const res = await t.call({ method: 'GET', url: `/v2/voices?workspace=w&provider=${provider}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().response).toEqual({
        pagination: { total_records: 0, limit: 50, offset: 0 },
        voices: [],
      });
    }
  });

  it('gives a voice_id an agent can be created with', async () => {
    const listed = (await t.call({ method: 'GET', url: '/v2/voices?workspace=w' })).json().response
      .voices as Json[];
    const voiceId = listed[0]!.voice_id as string;
    const res = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ agent: { prompt: 'You help.', voice_id: voiceId } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().response.model_id as string;
    const agent = (await t.call({ method: 'GET', url: `/v2/assistants/${id}` })).json().response
      .assistants[0];
    expect(agent.agent.voice_id).toBe(voiceId);
  });
});
