import { VendorRequestError, field, genderOf, getVendorJson, text } from './tts-hosted-http.ts';
import type { VendorVoice } from './types.ts';

// Cartesia's voice list (`GET /voices`): a page of `data` with `has_more` in dated versions from
// 2025 on, a bare array before; pages are followed with `starting_after`.

const PAGE = 100;
const MAX_PAGES = 20;

export interface CartesiaVoiceRequest {
  httpBaseUrl: string;
  apiKey: string;
  version: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

const toVoice = (v: unknown): VendorVoice => {
  const language = text(field(v, 'language'));
  const preview = text(field(v, 'preview_file_url'));
  return {
    id: text(field(v, 'id')),
    name: text(field(v, 'name')),
    gender: genderOf(field(v, 'gender')),
    languages: language ? [language] : [],
    description: text(field(v, 'description')),
    ...(preview ? { previewUrl: preview } : {}),
  };
};

export async function listCartesiaVoices(r: CartesiaVoiceRequest): Promise<VendorVoice[]> {
  const out: VendorVoice[] = [];
  let after = '';
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query = new URLSearchParams({ limit: String(PAGE), ...(after ? { starting_after: after } : {}) });
    const body = await getVendorJson({
      vendor: 'cartesia',
      url: `${r.httpBaseUrl}/voices?${query}`,
      headers: { authorization: `Bearer ${r.apiKey}`, 'cartesia-version': r.version },
      timeoutMs: r.timeoutMs,
      signal: r.signal,
    });
    const data = Array.isArray(body) ? body : field(body, 'data');
    if (!Array.isArray(data))
      throw new VendorRequestError('cartesia: the voice list has no voices', 'bad_response');
    const voices = data.map(toVoice).filter((v) => v.id);
    out.push(...voices);
    if (Array.isArray(body) || field(body, 'has_more') !== true || voices.length === 0) return out;
    after = voices[voices.length - 1]!.id;
  }
  return out;
}
