import { Type } from '@sinclair/typebox';
import { VOICE_PROVIDERS } from '../../providers/index.ts';
import { Nullable, PaginationSchema, StringEnum, limitOffsetQuery } from '../schemas/common.ts';

// `GET /v2/voices`: the voices an agent's `agent.voice_id` can name, as a limit/offset list. The
// published query also names `workspace` (the key decides the workspace here) and a `provider`
// filter whose published values are hosted vendors this installation has no voices of.

/** The published provider values, then the providers of Parley's own catalogue. */
export const PROVIDER_FILTER = ['elevenlabs', 'deepgram', 'synthflow', ...VOICE_PROVIDERS] as const;

export const ListVoicesQuery = Type.Object({
  workspace: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        "Accepted and ignored: the API key decides the workspace, and the catalogue is the installation's.",
    }),
  ),
  ...limitOffsetQuery(50, 1000),
  search: Type.Optional(
    Type.String({ maxLength: 100, description: 'Part of the name or id (case-insensitive).' }),
  ),
  provider: Type.Optional(
    StringEnum(PROVIDER_FILTER, { description: 'Only the voices of this provider (no filter when absent).' }),
  ),
});

export const VoiceRead = Type.Object(
  {
    voice_id: Type.String({ description: 'The value for `agent.voice_id`.' }),
    name: Type.String(),
    preview: Type.String({ description: 'URL of an audio sample; empty: none yet.' }),
    workspace: Type.String({ description: "Empty: the installation's voice, not a workspace's own." }),
    provider: Type.String({ description: 'The text-to-speech engine or vendor.' }),
    gender: Nullable(Type.String({ description: 'male, female or neutral; null when unknown.' })),
    languages: Type.Array(Type.String(), { description: 'BCP-47 tags.' }),
    description: Type.String(),
    available: Type.Boolean({
      description:
        'Whether this installation can speak with it now (false for every voice until the voice pipeline lands).',
    }),
  },
  { title: 'Voice' },
);

export const VoicePage = Type.Object({ pagination: PaginationSchema, voices: Type.Array(VoiceRead) });
