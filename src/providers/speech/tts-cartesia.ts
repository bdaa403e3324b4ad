// The Cartesia TTS: streaming synthesis over Cartesia's TTS WebSocket (raw `ws`, no vendor SDK),
// one socket per TTS stream and one context per segment, voices and health over HTTP.
// docs/providers/cartesia.md describes what is sent.
import { SESSION_RATE } from '../../media/index.ts';
import { cartesiaWire } from './tts-cartesia-wire.ts';
import { listCartesiaVoices } from './tts-cartesia-voices.ts';
import { hostedCommon, streamRate, trimSlash, type HostedTTSCommonOptions } from './tts-hosted-config.ts';
import { checkByVoices } from './tts-hosted-http.ts';
import { openHostedStream } from './tts-hosted-stream.ts';
import type { HostedTTS, TTSOptions, TTSStream } from './types.ts';

export interface CartesiaTTSOptions extends HostedTTSCommonOptions {
  /** e.g. `wss://api.cartesia.ai` */
  baseUrl: string;
  /** A dated `Cartesia-Version`, e.g. `2025-04-16`. */
  version: string;
  /** e.g. `sonic-3` */
  model: string;
}

export const CARTESIA_DEFAULT_BASE_URL = 'wss://api.cartesia.ai';
export const CARTESIA_DEFAULT_VERSION = '2025-04-16';
export const CARTESIA_DEFAULT_MODEL = 'sonic-3';
/** Segments synthesized ahead at once: more only buffers audio that cannot play yet. */
const MAX_CONTEXTS = 4;

export function createCartesiaTTS(options: CartesiaTTSOptions): HostedTTS {
  const baseUrl = trimSlash(options.baseUrl);
  const common = hostedCommon(baseUrl, options);
  const voices = (signal?: AbortSignal) =>
    listCartesiaVoices({
      httpBaseUrl: common.httpBaseUrl,
      apiKey: common.apiKey,
      version: options.version,
      timeoutMs: common.httpTimeoutMs,
      signal,
    });
  return {
    name: 'cartesia',
    sampleRate: SESSION_RATE,
    voices,
    check: (signal) => checkByVoices('cartesia', () => voices(signal), common.defaultVoice),
    stream(streamOptions: TTSOptions = {}): TTSStream {
      const wire = cartesiaWire({
        baseUrl,
        apiKey: common.apiKey,
        version: options.version,
        model: options.model,
        voice: streamOptions.voice ?? common.defaultVoice,
        rate: streamRate(streamOptions.sampleRate, SESSION_RATE),
        options: streamOptions,
      });
      return openHostedStream({
        vendor: 'cartesia',
        wire,
        clock: common.clock,
        logger: common.logger,
        connectTimeoutMs: common.connectTimeoutMs,
        stallTimeoutMs: common.stallTimeoutMs,
        maxPayload: common.maxPayload,
        maxContexts: MAX_CONTEXTS,
        secret: common.apiKey,
        signal: streamOptions.signal,
      });
    },
  };
}
