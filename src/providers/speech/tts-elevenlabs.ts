// The ElevenLabs TTS: streaming synthesis over the multi-context WebSocket (raw `ws`, no vendor
// SDK), one socket per TTS stream and one context per segment (see tts-elevenlabs-wire.ts for
// why), voices and health over HTTP. docs/providers/elevenlabs.md describes what is sent.
import { SESSION_RATE } from '../../media/index.ts';
import { elevenLabsWire } from './tts-elevenlabs-wire.ts';
import { listElevenLabsVoices } from './tts-elevenlabs-voices.ts';
import { hostedCommon, streamRate, trimSlash, type HostedTTSCommonOptions } from './tts-hosted-config.ts';
import { checkByVoices } from './tts-hosted-http.ts';
import { openHostedStream } from './tts-hosted-stream.ts';
import type { HostedTTS, TTSOptions, TTSStream } from './types.ts';

export interface ElevenLabsTTSOptions extends HostedTTSCommonOptions {
  /** e.g. `wss://api.elevenlabs.io` */
  baseUrl: string;
  /** e.g. `eleven_flash_v2_5` */
  model: string;
  /** Telephone legs (8 kHz) get `ulaw_8000` instead of `pcm_8000` (default false). */
  ulaw8000?: boolean;
}

export const ELEVENLABS_DEFAULT_BASE_URL = 'wss://api.elevenlabs.io';
export const ELEVENLABS_DEFAULT_MODEL = 'eleven_flash_v2_5';
/** Contexts open at once on one socket: ElevenLabs allows 5; one is left for a closing context. */
const MAX_CONTEXTS = 4;

export function createElevenLabsTTS(options: ElevenLabsTTSOptions): HostedTTS {
  const baseUrl = trimSlash(options.baseUrl);
  const common = hostedCommon(baseUrl, options);
  const voices = (signal?: AbortSignal) =>
    listElevenLabsVoices(common.httpBaseUrl, common.apiKey, common.httpTimeoutMs, signal);
  return {
    name: 'elevenlabs',
    sampleRate: SESSION_RATE,
    voices,
    check: (signal) => checkByVoices('elevenlabs', () => voices(signal), common.defaultVoice),
    stream(streamOptions: TTSOptions = {}): TTSStream {
      const wire = elevenLabsWire({
        baseUrl,
        apiKey: common.apiKey,
        model: options.model,
        voice: streamOptions.voice ?? common.defaultVoice,
        rate: streamRate(streamOptions.sampleRate, SESSION_RATE),
        ulaw: options.ulaw8000 ?? false,
        options: streamOptions,
      });
      return openHostedStream({
        vendor: 'elevenlabs',
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
