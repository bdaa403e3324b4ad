import { VendorRequestError, field, genderOf, getVendorJson, text } from './tts-hosted-http.ts';
import type { VendorVoice } from './types.ts';

// ElevenLabs' voice list (`GET /v1/voices`): the voices of the key's library, premade ones included.

function languagesOf(voice: unknown): string[] {
  const verified = field(voice, 'verified_languages');
  const tags = Array.isArray(verified)
    ? verified.map((l) => text(field(l, 'locale')) || text(field(l, 'language')))
    : [text(field(field(voice, 'labels'), 'language'))];
  return [...new Set(tags.filter(Boolean))];
}

export async function listElevenLabsVoices(
  httpBaseUrl: string,
  apiKey: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<VendorVoice[]> {
  const body = await getVendorJson({
    vendor: 'elevenlabs',
    url: `${httpBaseUrl}/v1/voices`,
    headers: { 'xi-api-key': apiKey },
    timeoutMs,
    signal,
  });
  const voices = field(body, 'voices');
  if (!Array.isArray(voices)) {
    throw new VendorRequestError('elevenlabs: the voice list has no voices', 'bad_response');
  }
  return voices
    .filter((v) => text(field(v, 'voice_id')))
    .map((v): VendorVoice => {
      const labels = field(v, 'labels');
      const preview = text(field(v, 'preview_url'));
      return {
        id: text(field(v, 'voice_id')),
        name: text(field(v, 'name')),
        gender: genderOf(field(labels, 'gender')),
        languages: languagesOf(v),
        description: text(field(v, 'description')) || text(field(labels, 'description')),
        ...(preview ? { previewUrl: preview } : {}),
      };
    });
}
