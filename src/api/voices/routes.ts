import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { findVoices, type Voice } from '../../providers/index.ts';
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

export const voiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
      const voices = findVoices({
        ...(provider !== undefined ? { provider } : {}),
        ...(search !== undefined ? { search } : {}),
      });
      return ok({
        pagination: { total_records: voices.length, limit, offset },
        voices: voices.slice(offset, offset + limit).map(presentVoice),
      });
    },
  );
};
