import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { SPEECH_VENDORS, invalidInput, notFound, toIso, type VendorSettings } from '../../core/index.ts';
import type { ProviderHealth } from '../../providers/index.ts';
import type { ProviderStatus, SpeechRegistry } from '../../speech/index.ts';
import type { Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { StatusOnly, StringEnum, errorResponses, okEnvelope } from '../schemas/common.ts';

// A workspace's hosted speech vendors (docs/speech-providers.md, Parley's addition under /v2):
// its own key for a vendor replaces the server's for its calls. Keys are write-only; a read says
// whether one is set and whether the vendor accepts the settings (asked, not assumed). Settings
// the vendor refuses are refused here, naming the field, so they are not found mid-call.

const TAG = ['Speech providers'];

const Health = Type.Object({
  ok: Type.Boolean(),
  problem: Type.Union([Type.String(), Type.Null()], {
    description: 'bad_key, unreachable, bad_model, bad_voice or bad_response; null when ok.',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
});

const ProviderRead = Type.Object(
  {
    provider: Type.String({
      description: 'deepgram, openai, elevenlabs, cartesia, or the builtin pocketsphinx and flite.',
    }),
    source: Type.Union([Type.Literal('workspace'), Type.Literal('server'), Type.Literal('builtin')]),
    kinds: Type.Array(Type.Union([Type.Literal('stt'), Type.Literal('tts')])),
    base_url: Type.Union([Type.String(), Type.Null()]),
    stt_model: Type.Union([Type.String(), Type.Null()]),
    tts_model: Type.Union([Type.String(), Type.Null()]),
    voice: Type.Union([Type.String(), Type.Null()]),
    api_key_set: Type.Boolean(),
    health: Health,
    checked_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'SpeechProvider', title: 'SpeechProvider' },
);

const VendorParams = Type.Object({ provider: StringEnum(SPEECH_VENDORS) });

const ProviderBody = Type.Object(
  {
    api_key: Type.String({
      maxLength: 500,
      description: 'Write-only. May be empty for a self-hosted OpenAI-compatible server.',
    }),
    base_url: Type.Optional(
      Type.String({ format: 'uri', maxLength: 500, description: "The vendor's API root; default its own." }),
    ),
    stt_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    tts_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    voice: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The default voice of its TTS.' }),
    ),
  },
  { additionalProperties: false },
);

const presentHealth = (h: ProviderHealth) =>
  h.ok ? { ok: true, problem: null, reason: null } : { ok: false, problem: h.problem, reason: h.reason };

const present = (s: ProviderStatus) => ({
  provider: s.vendor,
  source: s.source,
  kinds: s.kinds,
  base_url: s.baseUrl,
  stt_model: s.sttModel,
  tts_model: s.ttsModel,
  voice: s.voice,
  api_key_set: s.apiKeySet,
  health: presentHealth(s.health),
  checked_at: toIso(s.checkedAt),
});

/** The body field a refused setting names. */
const FIELD: Record<Exclude<ProviderHealth, { ok: true }>['problem'], string> = {
  bad_key: 'api_key',
  unreachable: 'base_url',
  bad_response: 'base_url',
  bad_model: 'stt_model',
  bad_voice: 'voice',
};

export const speechProviderRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  speech: SpeechRegistry;
}> = async (app, { store, speech }) => {
  app.get(
    '/speech/providers',
    {
      schema: {
        tags: TAG,
        summary: "The speech providers this workspace's calls use, and whether their settings work",
        response: {
          200: okEnvelope(Type.Object({ providers: Type.Array(ProviderRead) })),
          ...errorResponses(401),
        },
      },
    },
    async (request) => ok({ providers: (await speech.providers(request.workspace.id)).map(present) }),
  );

  app.put(
    '/speech/providers/:provider',
    {
      schema: {
        tags: TAG,
        summary: "Set the workspace's own settings for a speech vendor (checked with the vendor first)",
        params: VendorParams,
        body: ProviderBody,
        response: { 200: okEnvelope(ProviderRead), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const vendor = request.params.provider;
      const body = request.body;
      if (body.api_key === '' && !(vendor === 'openai' && body.base_url))
        throw invalidInput(`body.api_key: ${vendor} needs a key`, ['body', 'api_key']);
      const settings: VendorSettings = { apiKey: body.api_key };
      if (body.base_url) settings.baseUrl = body.base_url.replace(/\/+$/, '');
      if (body.stt_model) settings.sttModel = body.stt_model;
      if (body.tts_model) settings.ttsModel = body.tts_model;
      if (body.voice) settings.voice = body.voice;
      const health = await speech.check(vendor, settings);
      if (!health.ok) {
        const field = health.problem === 'bad_model' && !body.stt_model ? 'tts_model' : FIELD[health.problem];
        throw invalidInput(`body.${field}: ${vendor} refused these settings (${health.reason})`, [
          'body',
          field,
        ]);
      }
      await store.speechProviders.set(request.workspace.id, vendor, settings);
      const status = (await speech.providers(request.workspace.id)).find((s) => s.vendor === vendor);
      if (!status) throw notFound(`${vendor} has no adapter on this server`);
      return ok(present(status));
    },
  );

  app.delete(
    '/speech/providers/:provider',
    {
      schema: {
        tags: TAG,
        summary: "Remove the workspace's own settings for a vendor (its calls use the server's again)",
        params: VendorParams,
        response: { 200: StatusOnly, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      if (!(await store.speechProviders.remove(request.workspace.id, request.params.provider)))
        throw notFound(`this workspace has no settings of its own for ${request.params.provider}`);
      return { status: 'ok' as const };
    },
  );
};
