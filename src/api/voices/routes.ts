import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../core/index.ts';
import { monoWav } from '../../media/index.ts';
import { findVoices, type Voice } from '../../providers/index.ts';
import type { SpeechRegistry } from '../../speech/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { ListVoicesQuery, VoicePage } from './schemas.ts';

// `GET /v2/voices`: the installation's voice catalogue (src/providers/voices.ts), the same for
// every workspace; `available` says whether this installation speaks with it (docs/api-notes.md,
// "Voices").

const TAG = ['Voices'];

export function presentVoice(v: Voice) {
  return {
    voice_id: v.id,
    name: v.name,
    preview: '',
    workspace: '',
    provider: v.provider,
    gender: v.gender,
    languages: [...v.languages],
    description: v.description,
    available: v.available,
  };
}

/** The voices of the hosted vendors the workspace's calls use, as catalogue entries. */
async function hostedVoices(speech: SpeechRegistry, workspaceId: string): Promise<Voice[]> {
  const byVendor = await speech.voices(workspaceId);
  return byVendor.flatMap(({ provider, voices, available }) =>
    voices.map((v) => ({
      id: v.id,
      name: v.name,
      provider,
      gender: v.gender,
      languages: v.languages,
      description: v.description,
      available,
      ...(v.previewUrl ? { previewUrl: v.previewUrl } : {}),
    })),
  );
}

export const voiceRoutes: FastifyPluginAsyncTypebox<{ speech?: SpeechRegistry; publicUrl?: string }> = async (
  app,
  { speech, publicUrl },
) => {
  const base = (publicUrl ?? '').replace(/\/+$/, '');
  /** The vendor's own sample, else Parley's (synthesized on request) when it can speak the voice. */
  const previewOf = (v: Voice & { previewUrl?: string }) =>
    v.previewUrl ?? (speech && v.available ? `${base}/v2/voices/${encodeURIComponent(v.id)}/preview` : '');

  app.get(
    '/voices',
    {
      schema: {
        tags: TAG,
        summary: 'List the voices an agent can use (agent.voice_id)',
        querystring: ListVoicesQuery,
        response: { 200: okEnvelope(VoicePage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset, search, provider } = request.query;
      const query = {
        ...(provider !== undefined ? { provider } : {}),
        ...(search !== undefined ? { search } : {}),
      };
      const hosted = speech ? findVoices(query, await hostedVoices(speech, request.workspace.id)) : [];
      const voices = [...findVoices(query), ...hosted];
      return ok({
        pagination: { total_records: voices.length, limit, offset },
        voices: voices
          .slice(offset, offset + limit)
          .map((v) => ({ ...presentVoice(v), preview: previewOf(v) })),
      });
    },
  );

  app.get(
    '/voices/:voice_id/preview',
    {
      schema: {
        tags: TAG,
        summary: 'A short sample of a voice (audio/wav), synthesized by the provider that serves it',
        params: Type.Object({ voice_id: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const sample = speech ? await speech.preview(request.workspace.id, request.params.voice_id) : null;
      if (!sample) throw notFound(`no configured provider speaks voice "${request.params.voice_id}"`);
      return reply.type('audio/wav').send(monoWav(sample.samples, sample.sampleRate));
    },
  );
};
