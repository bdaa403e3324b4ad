import { afterAll, beforeAll, expect, it } from 'vitest';
import { FLITE_VOICES, VOICES } from '../../src/providers/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { expectErrorBody, expectFieldError, type Json } from '../assertions.ts';

// GET /v2/voices: the installation's catalogue (src/providers/voices.ts) as a limit/offset list,
// honest about what speaks (flite's built-in voices, in-process: all available), and usable as
// the source of an agent's `agent.voice_id`.

forEachStore('voices API', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target);
  });
  afterAll(() => t.close());

  const voices = (query = '', key?: string | null) =>
    t.call({ method: 'GET', url: `/v2/voices${query}`, key });

  async function page(query = ''): Promise<{ pagination: Json; voices: Json[] }> {
    const res = await voices(query);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('ok');
    return res.json().response;
  }

  it('lists the offline flite voices, each of which the offline TTS speaks', async () => {
    const r = await page();
    expect(r.pagination).toEqual({ total_records: VOICES.length, limit: 50, offset: 0 });
    expect(r.voices.map((v) => v.voice_id)).toEqual(['kal16', 'kal', 'rms', 'slt', 'awb']);
    expect(r.voices.find((v) => v.voice_id === 'slt')).toEqual({
      voice_id: 'slt',
      name: 'SLT',
      preview: '',
      workspace: '',
      provider: 'flite',
      gender: 'female',
      languages: ['en-US'],
      description: expect.stringContaining('female'),
      available: true,
    });
    for (const v of r.voices) {
      expect(v.available).toBe(true);
      expect(FLITE_VOICES.map((f) => f.id)).toContain(v.voice_id);
      expect(typeof v.preview).toBe('string');
      expect(typeof v.workspace).toBe('string');
      expect(['male', 'female', 'neutral', null]).toContain(v.gender);
    }
  });

  it('pages with limit and offset, counting every match', async () => {
    const r = await page('?limit=2&offset=1');
    expect(r.pagination).toEqual({ total_records: 5, limit: 2, offset: 1 });
    expect(r.voices.map((v) => v.voice_id)).toEqual(['kal', 'rms']);
    expect((await page('?offset=5')).voices).toEqual([]);
  });

  it('filters by provider and searches names', async () => {
    expect((await page('?provider=flite')).pagination.total_records).toBe(5);
    for (const provider of ['elevenlabs', 'deepgram', 'synthflow']) {
      expect(await page(`?provider=${provider}`)).toEqual({
        pagination: { total_records: 0, limit: 50, offset: 0 },
        voices: [],
      });
    }
    expect((await page('?search=KAL')).voices.map((v) => v.voice_id)).toEqual(['kal16', 'kal']);
    expect((await page('?search=english')).voices).toEqual([]); // descriptions are not searched
  });

  it('accepts any workspace parameter (the key decides the workspace)', async () => {
    expect(await page(`?workspace=${t.ws.id}`)).toEqual(await page());
    expect(await page('?workspace=1712345678901x123456789012345678')).toEqual(await page());
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['offset=-1', 'offset'],
    ['provider=azure', 'provider'],
  ])('refuses %s with a 400 naming it', async (query, field) => {
    expectFieldError(await voices(`?${query}`), ['query', field]);
  });

  it('needs a key', async () => {
    expectErrorBody(await voices('', null), 401, 'auth');
  });

  it('gives voice ids an agent takes as its voice_id', async () => {
    for (const v of (await page()).voices) {
      const res = await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: agentBody({ agent: { prompt: 'Hi.', voice_id: v.voice_id } }),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().details.voice).toBe(v.voice_id);
    }
  });
});
