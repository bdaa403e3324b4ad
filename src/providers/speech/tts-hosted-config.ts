import { silentLogger, systemClock, type Clock, type Logger } from '../../core/index.ts';
import type { SampleRate } from '../../media/index.ts';

// What every hosted TTS adapter is configured with besides its vendor's own settings.

export interface HostedTTSCommonOptions {
  apiKey: string;
  /** The voice of streams that name none. */
  defaultVoice: string;
  /** The HTTP API's base (voice list, check); default: `baseUrl` with ws→http, wss→https. */
  httpBaseUrl?: string;
  /** Bound on the WebSocket handshake, ms of `clock` (default 5000). */
  connectTimeoutMs?: number;
  /** A flushed segment with nothing from the vendor for this long fails, ms of `clock` (default 10000). */
  stallTimeoutMs?: number;
  /** Vendor messages larger than this fail the stream (default 4 MiB). */
  maxMessageBytes?: number;
  /** Bound on voice list and check requests, real ms (default 10000). */
  httpTimeoutMs?: number;
  /** Times connect and stall bounds, and gives frames their `at` (default: the system clock). */
  clock?: Clock;
  logger?: Logger;
}

export interface HostedTTSCommon {
  apiKey: string;
  defaultVoice: string;
  httpBaseUrl: string;
  connectTimeoutMs: number;
  stallTimeoutMs: number;
  maxPayload: number;
  httpTimeoutMs: number;
  clock: Clock;
  logger: Logger;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function hostedCommon(baseUrl: string, options: HostedTTSCommonOptions): HostedTTSCommon {
  return {
    apiKey: options.apiKey,
    defaultVoice: options.defaultVoice,
    httpBaseUrl: trimSlash(options.httpBaseUrl ?? baseUrl.replace(/^ws(s?):/, 'http$1:')),
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    stallTimeoutMs: options.stallTimeoutMs ?? 10_000,
    maxPayload: options.maxMessageBytes ?? 4 * 1024 * 1024,
    httpTimeoutMs: options.httpTimeoutMs ?? 10_000,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? silentLogger(),
  };
}

/** The rate a stream asks the vendor for: the call's, else the session's. */
export const streamRate = (asked: SampleRate | undefined, fallback: SampleRate): SampleRate =>
  asked ?? fallback;

export { trimSlash };
