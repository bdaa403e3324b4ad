import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SpeechConfig, VendorSettings } from '../../src/core/index.ts';
import type { HostedTTS, ProviderHealth } from '../../src/providers/index.ts';
import { createFakeTTS } from '../../src/providers/testing/index.ts';
import type { SpeechVendorFactories } from '../../src/speech/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import { expectErrorBody, expectFieldError, type Json } from '../assertions.ts';

// /v2/speech/providers: a workspace's own keys for hosted speech vendors, write-only, checked
// with the vendor before they are kept (the vendors here are fakes of the adapter seam; each
// adapter's own suite tests its wire protocol against a fake server).

/** A vendor that refuses the key "bad" and cannot be reached at a base URL naming "unreachable". */
function healthOf(settings: VendorSettings): ProviderHealth {
  if (settings.apiKey === 'bad')
    return { ok: false, problem: 'bad_key', reason: 'the vendor refused the key (401)' };
  if (settings.baseUrl?.includes('unreachable'))
    return { ok: false, problem: 'unreachable', reason: 'connection refused' };
  return { ok: true };
}

function fakeTTS(name: string, settings: VendorSettings): HostedTTS {
  const inner = createFakeTTS();
  return {
    name,
    sampleRate: inner.sampleRate,
    stream: (o) => inner.stream(o),
    check: async () => healthOf(settings),
    voices: async () => [
      {
        id: `${name}-rachel`,
        name: 'Rachel',
        gender: 'female',
        languages: ['en-US'],
        description: `A ${name} voice.`,
      },
    ],
  };
}

const factories: SpeechVendorFactories = {
  stt: {},
  tts: { elevenlabs: (s) => fakeTTS('elevenlabs', s), cartesia: (s) => fakeTTS('cartesia', s) },
};
const config: SpeechConfig = {
  vendors: { cartesia: { apiKey: 'server-secret-key' } },
  stt: [],
  tts: ['cartesia'],
};

forEachStore('speech providers API', (target) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await createTestApi(target, { speechVendors: { config, factories } });
  });
  afterAll(() => t.close());

  const providers = async (key?: string) => {
    const res = await t.call({ method: 'GET', url: '/v2/speech/providers', ...(key ? { key } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toMatch(/secret|ws-key/);
    return res.json().response.providers as Json[];
  };
  const put = (provider: string, payload: unknown) =>
    t.call({ method: 'PUT', url: `/v2/speech/providers/${provider}`, payload: payload as Json });

  it("lists the server's vendors with their health, never their keys", async () => {
    expect(await providers()).toEqual([
      {
        provider: 'cartesia',
        source: 'server',
        kinds: ['tts'],
        base_url: null,
        stt_model: null,
        tts_model: null,
        voice: null,
        api_key_set: true,
        health: { ok: true, problem: null, reason: null },
        checked_at: expect.any(String),
      },
    ]);
  });

  it("keeps a workspace's own settings once the vendor accepts them; the key is never read back", async () => {
    const res = await put('elevenlabs', {
      api_key: 'ws-key-123',
      voice: 'rachel',
      tts_model: 'eleven_flash_v2_5',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain('ws-key-123');
    expect(res.json().response).toMatchObject({
      provider: 'elevenlabs',
      source: 'workspace',
      voice: 'rachel',
      tts_model: 'eleven_flash_v2_5',
      api_key_set: true,
      health: { ok: true },
    });
    expect((await providers()).map((p) => [p.provider, p.source])).toEqual([
      ['elevenlabs', 'workspace'],
      ['cartesia', 'server'],
    ]);
    // Another workspace still sees only the server's.
    expect((await providers(t.other.key)).map((p) => p.provider)).toEqual(['cartesia']);
  });

  it('refuses settings the vendor refuses, naming the field, and keeps nothing', async () => {
    const before = await providers();
    expectFieldError(await put('cartesia', { api_key: 'bad' }), ['body', 'api_key']);
    expectFieldError(await put('cartesia', { api_key: 'k', base_url: 'http://unreachable.invalid/v1' }), [
      'body',
      'base_url',
    ]);
    expectFieldError(await put('cartesia', { api_key: '' }), ['body', 'api_key']);
    expect(await providers()).toEqual(before);
  });

  it('refuses unknown vendors and unknown fields', async () => {
    expectErrorBody(await put('whisperhub', { api_key: 'k' }), 400, 'validation');
    expectErrorBody(await put('cartesia', { api_key: 'k', secret_mode: true }), 400, 'validation');
    expectErrorBody(await put('cartesia', { base_url: 'http://x' }), 400, 'validation');
  });

  it("removes a workspace's own settings: its calls use the server's again", async () => {
    expect((await put('cartesia', { api_key: 'ws-key-cartesia' })).statusCode).toBe(200);
    expect((await providers()).find((p) => p.provider === 'cartesia')?.source).toBe('workspace');
    const res = await t.call({ method: 'DELETE', url: '/v2/speech/providers/cartesia' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await providers()).find((p) => p.provider === 'cartesia')?.source).toBe('server');
    expectErrorBody(
      await t.call({ method: 'DELETE', url: '/v2/speech/providers/cartesia' }),
      404,
      'not_found',
    );
  });

  it("accepts an agent's speech fields and names a bad one", async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({
        agent: { prompt: 'x', transcriber_provider: 'deepgram-nova-3', fallback_voice_id: 'rachel' },
      }),
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().response.model_id as string;
    const read = await t.call({ method: 'GET', url: `/v2/assistants/${id}` });
    expect(read.json().response.assistants[0].agent).toMatchObject({
      transcriber_provider: 'deepgram-nova-3',
      fallback_voice_id: 'rachel',
    });
    expectFieldError(
      await t.call({
        method: 'POST',
        url: '/v2/assistants',
        payload: agentBody({ agent: { transcriber_provider: 'nope' } }),
      }),
      ['body', 'agent', 'transcriber_provider'],
    );
  });

  it('lists the voices of every configured vendor, each with a preview that plays', async () => {
    const res = await t.call({ method: 'GET', url: '/v2/voices?limit=100' });
    expect(res.statusCode, res.body).toBe(200);
    const voices = res.json().response.voices as Json[];
    const hosted = voices.filter((v) => v.provider !== 'flite');
    expect(hosted.map((v) => [v.voice_id, v.provider, v.available])).toEqual([
      ['elevenlabs-rachel', 'elevenlabs', true],
      ['cartesia-rachel', 'cartesia', true],
    ]);
    const preview = hosted[0]!.preview as string;
    expect(preview).toMatch(/\/v2\/voices\/elevenlabs-rachel\/preview$/);
    const audio = await t.call({ method: 'GET', url: new URL(preview).pathname });
    expect(audio.statusCode).toBe(200);
    expect(audio.headers['content-type']).toBe('audio/wav');
    const wav = audio.rawPayload;
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.length).toBeGreaterThan(44 + 16000);
    expect(
      (await t.call({ method: 'GET', url: '/v2/voices?provider=cartesia' })).json().response.voices,
    ).toHaveLength(1);
    expectErrorBody(await t.call({ method: 'GET', url: '/v2/voices/nobody/preview' }), 404, 'not_found');
  });

  it("says in the agent's read which voice its calls speak with, and why, as the providers change", async () => {
    const created = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({
        agent: { prompt: 'x', voice_id: 'elevenlabs-rachel', fallback_voice_id: 'cartesia-rachel' },
      }),
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().response.model_id as string;
    const resolution = async () =>
      (await t.call({ method: 'GET', url: `/v2/assistants/${id}` })).json().response.assistants[0]
        .voice_resolution;
    expect(await resolution()).toEqual({
      voice_id: 'elevenlabs-rachel',
      available: true,
      speaks_with: 'elevenlabs-rachel',
      provider: 'elevenlabs',
      reason: null,
    });
    expect((await t.call({ method: 'DELETE', url: '/v2/speech/providers/elevenlabs' })).statusCode).toBe(200);
    expect(await resolution()).toEqual({
      voice_id: 'elevenlabs-rachel',
      available: false,
      speaks_with: 'cartesia-rachel',
      provider: 'cartesia',
      reason: 'no configured provider serves voice "elevenlabs-rachel": speaking with fallback_voice_id',
    });
    const listed = (await t.call({ method: 'GET', url: '/v2/assistants/?limit=50' })).json().response
      .assistants as Json[];
    expect(listed.find((a) => a.model_id === id)?.voice_resolution).toMatchObject({ available: false });
  });
});
