import WebSocket from 'ws';
import type { Clock } from '../../core/index.ts';
import { SpeechError } from './types.ts';

// Opens a hosted TTS's WebSocket: the key goes in a header (never the URL, so it is in no log or
// error), messages larger than `maxPayload` are refused by the ws client, and the handshake is
// bounded on the injected clock. Every failure becomes a SpeechError; a refused key is not
// retryable.

export interface VendorSocketOptions {
  /** `elevenlabs`, `cartesia`: names the vendor in errors. */
  vendor: string;
  url: string;
  headers: Record<string, string>;
  maxPayload: number;
  connectTimeoutMs: number;
  clock: Clock;
  /** Aborting gives up the connection attempt. */
  signal: AbortSignal;
}

export const ignore = (): void => undefined;

export function connectVendorSocket(options: VendorSocketOptions): Promise<WebSocket> {
  const { vendor } = options;
  return new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(options.url, { headers: options.headers, maxPayload: options.maxPayload });
    const timer = new AbortController();
    let settled = false;
    const settle = (error: SpeechError | null) => {
      if (settled) return;
      settled = true;
      timer.abort();
      options.signal.removeEventListener('abort', onAbort);
      if (error === null) return resolve(ws);
      ws.removeAllListeners('open');
      ws.on('error', ignore);
      ws.terminate();
      reject(error);
    };
    const onAbort = () => settle(new SpeechError(`${vendor}: the stream was closed`, 'tts_failed', false));
    options.signal.addEventListener('abort', onAbort, { once: true });
    ws.on('error', (err) => settle(new SpeechError(`${vendor}: could not connect`, 'tts_failed', true, err)));
    ws.once('open', () => settle(null));
    ws.once('unexpected-response', (request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      request.destroy();
      const badKey = status === 401 || status === 403;
      settle(
        new SpeechError(
          badKey
            ? `${vendor}: the key was refused (HTTP ${status})`
            : `${vendor}: the connection was refused (HTTP ${status})`,
          'tts_failed',
          !badKey && status !== 400 && status !== 404,
        ),
      );
    });
    options.clock
      .sleep(options.connectTimeoutMs, timer.signal)
      .then(
        () =>
          settle(
            new SpeechError(
              `${vendor}: no connection within ${options.connectTimeoutMs} ms`,
              'tts_failed',
              true,
            ),
          ),
        ignore,
      );
    if (options.signal.aborted) onAbort();
  });
}
