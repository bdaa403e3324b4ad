import type { SampleRate } from '../../media/index.ts';

// Deepgram's live-transcription wire (docs/providers/deepgram.md): the URL a stream opens, and
// the messages it reads, parsed once into what the adapter uses.

export interface DeepgramStreamSettings {
  model: string;
  rate: SampleRate;
  language: string;
  keywords: readonly string[];
  endpointingMs: number;
  utteranceEndMs: number;
}

/** nova-3 boosts `keyterm`s; earlier models take `keywords` with an intensifier. */
export function deepgramUrl(baseUrl: string, s: DeepgramStreamSettings): string {
  const query = new URLSearchParams({
    model: s.model,
    language: s.language,
    encoding: 'linear16',
    sample_rate: String(s.rate),
    channels: '1',
    interim_results: 'true',
    endpointing: String(s.endpointingMs),
    utterance_end_ms: String(s.utteranceEndMs),
    vad_events: 'true',
    smart_format: 'true',
    punctuate: 'true',
  });
  for (const word of s.keywords.slice(0, 100)) {
    if (s.model.startsWith('nova-3')) query.append('keyterm', word);
    else query.append('keywords', `${word}:2`);
  }
  return `${baseUrl}/v1/listen?${query.toString()}`;
}

/** The HTTP API's root for a WebSocket base URL. */
export const httpBaseOf = (baseUrl: string): string => baseUrl.replace(/^ws(s?):/, 'http$1:');

export type DeepgramMessage =
  | {
      kind: 'results';
      transcript: string;
      isFinal: boolean;
      speechFinal: boolean;
      fromFinalize: boolean;
      confidence?: number;
    }
  | { kind: 'speech_started' }
  | { kind: 'utterance_end' }
  | { kind: 'metadata' }
  | { kind: 'error'; description: string }
  | { kind: 'garbage' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

export function parseDeepgramMessage(text: string): DeepgramMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'garbage' };
  }
  if (!isObject(raw)) return { kind: 'garbage' };
  switch (raw.type) {
    case 'Results': {
      const channel = raw.channel;
      const alternatives =
        isObject(channel) && Array.isArray(channel.alternatives) ? channel.alternatives : null;
      const best: unknown = alternatives?.[0];
      if (!isObject(best) || typeof best.transcript !== 'string') return { kind: 'garbage' };
      return {
        kind: 'results',
        transcript: best.transcript.trim(),
        isFinal: raw.is_final === true,
        speechFinal: raw.speech_final === true,
        fromFinalize: raw.from_finalize === true,
        ...(typeof best.confidence === 'number' ? { confidence: best.confidence } : {}),
      };
    }
    case 'SpeechStarted':
      return { kind: 'speech_started' };
    case 'UtteranceEnd':
      return { kind: 'utterance_end' };
    case 'Metadata':
      return { kind: 'metadata' };
    case 'Error':
      return {
        kind: 'error',
        description: typeof raw.description === 'string' ? raw.description.slice(0, 200) : 'unknown',
      };
    default:
      // Deepgram's error frames also come as {err_code, err_msg}.
      if (typeof raw.err_code === 'string') return { kind: 'error', description: raw.err_code.slice(0, 100) };
      return { kind: 'metadata' };
  }
}
