// OpenAI-compatible speech (docs/providers/openai.md): `POST {base}/audio/speech` per segment,
// `response_format: pcm` (raw 16-bit little-endian mono at 24 kHz), the body read as it streams
// and cut into 20 ms frames. Each flushed segment's request starts at once; segments come out in
// order. A base URL makes self-hosted servers with the same API work.
import { createAsyncQueue, silentLogger, systemClock, type Clock, type Logger } from '../../core/index.ts';
import { samplesPerFrame } from '../../media/index.ts';
import {
  SpeechError,
  type HostedTTS,
  type ProviderHealth,
  type SynthesizedAudio,
  type TTSOptions,
  type TTSStream,
  type VendorVoice,
} from './types.ts';

export interface OpenAITTSOptions {
  /** May be empty for a self-hosted server that needs none. */
  apiKey: string;
  /** Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Default `gpt-4o-mini-tts`. */
  model?: string;
  /** Default `alloy`. */
  defaultVoice?: string;
  /** The voices a self-hosted server offers (default OpenAI's). */
  voices?: readonly string[];
  /** A segment with no audio for this long fails (default 10 000 ms of real time). */
  requestTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULT_TTS_MODEL = 'gpt-4o-mini-tts';
/** OpenAI's built-in voices (its speech reference). */
export const OPENAI_VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'onyx',
  'nova',
  'sage',
  'shimmer',
  'verse',
] as const;
const RATE = 24000;
const FRAME = samplesPerFrame(RATE);

export function createOpenAITTS(options: OpenAITTSOptions): HostedTTS {
  const baseUrl = (options.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const model = options.model ?? OPENAI_DEFAULT_TTS_MODEL;
  const defaultVoice = options.defaultVoice ?? 'alloy';
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger();
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const scrub = (text: string) => (options.apiKey ? text.split(options.apiKey).join('[redacted]') : text);

  function stream(streamOptions: TTSOptions = {}): TTSStream {
    const audio = createAsyncQueue<SynthesizedAudio>();
    const stop = new AbortController();
    const voice = streamOptions.voice ?? defaultVoice;
    const speed = Math.min(4, Math.max(0.25, streamOptions.speed ?? 1));
    let text = '';
    let ended = false;
    /** Each segment's frames as they come, and whether its body ended. */
    const segments: { frames: Int16Array[]; done: boolean; failed: unknown }[] = [];
    const texts: string[] = [];
    let emitting = 0;
    let emitted = 0;

    const fail = (error: unknown) => {
      if (audio.closed) return;
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ vendor: 'openai', reason: scrub(message) }, 'openai speech failed');
      audio.fail(
        error instanceof SpeechError
          ? error
          : new SpeechError(`openai speech: ${scrub(message)}`, 'tts_failed', true),
      );
      stop.abort();
    };

    /** Sends out what the segments in order have, ending the audio after the last. */
    function pump() {
      for (;;) {
        const segment = segments[emitting];
        if (!segment) break;
        if (segment.failed) return fail(segment.failed);
        // The newest frame waits for the body's end: only then is it known to be the last.
        while (segment.frames.length > (segment.done ? 0 : 1)) {
          const samples = segment.frames.shift()!;
          const last = segment.done && segment.frames.length === 0;
          audio.push({
            frame: { samples, sampleRate: RATE, at: clock.now() },
            segment: emitting,
            ...(emitted === 0 ? { text: texts[emitting] } : {}),
            ...(last ? { last: true } : {}),
          });
          emitted += 1;
        }
        if (!segment.done) return;
        if (emitted === 0) {
          // A body with no audio at all: the server said nothing for the text.
          return fail(new SpeechError('openai speech: a segment without audio', 'tts_failed', true));
        }
        emitting += 1;
        emitted = 0;
      }
      if (ended && emitting === segments.length) audio.close();
    }

    async function synthesize(index: number, input: string) {
      const segment = segments[index]!;
      try {
        const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(timeoutMs)]);
        const res = await fetch(`${baseUrl}/audio/speech`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ model, input, voice, response_format: 'pcm', speed }),
          signal,
        });
        if (!res.ok || !res.body) {
          const status = res.status;
          await res.body?.cancel();
          throw new SpeechError(
            `openai speech: HTTP ${status}`,
            'tts_failed',
            status !== 401 && status !== 403,
          );
        }
        const type = res.headers.get('content-type') ?? '';
        if (type.includes('json') || type.startsWith('text/')) {
          await res.body.cancel();
          throw new SpeechError('openai speech: the answer was not audio', 'tts_failed', true);
        }
        let carry = new Uint8Array(0);
        let pending = new Int16Array(0);
        for await (const chunk of res.body) {
          const bytes = carry.length > 0 ? concat(carry, chunk) : chunk;
          const whole = bytes.length - (bytes.length % 2);
          carry = bytes.slice(whole);
          const view = new DataView(bytes.buffer, bytes.byteOffset, whole);
          const samples = new Int16Array(pending.length + whole / 2);
          samples.set(pending);
          for (let i = 0; i < whole / 2; i += 1) samples[pending.length + i] = view.getInt16(i * 2, true);
          let at = 0;
          for (; at + FRAME <= samples.length; at += FRAME)
            segment.frames.push(samples.slice(at, at + FRAME));
          pending = samples.slice(at);
          pump();
        }
        if (carry.length > 0)
          throw new SpeechError('openai speech: an odd number of bytes (not 16-bit PCM)', 'tts_failed', true);
        if (pending.length > 0) segment.frames.push(pending);
        segment.done = true;
      } catch (error) {
        if (stop.signal.aborted && !audio.closed && !(error instanceof SpeechError)) return;
        segment.failed =
          error instanceof SpeechError
            ? error
            : new SpeechError(
                `openai speech: ${error instanceof Error && error.name === 'TimeoutError' ? `no audio within ${timeoutMs} ms` : 'the request failed'}`,
                'tts_failed',
                true,
                error,
              );
      }
      pump();
    }

    function cut() {
      const input = text.trim();
      text = '';
      if (!input) return;
      const index = segments.length;
      segments.push({ frames: [], done: false, failed: null });
      texts.push(input);
      void synthesize(index, input);
    }

    const close = () => {
      stop.abort();
      audio.close();
    };
    if (streamOptions.signal?.aborted) close();
    streamOptions.signal?.addEventListener('abort', close, { once: true });

    return {
      audio,
      pushText(piece) {
        if (!ended && !audio.closed) text += piece;
      },
      flush() {
        if (!ended && !audio.closed) cut();
      },
      endInput() {
        if (ended || audio.closed) return;
        cut();
        ended = true;
        pump();
      },
      close() {
        streamOptions.signal?.removeEventListener('abort', close);
        close();
      },
    };
  }

  async function check(signal?: AbortSignal): Promise<ProviderHealth> {
    try {
      const res = await fetch(`${baseUrl}/models`, { headers, ...(signal ? { signal } : {}) });
      if (res.status === 401 || res.status === 403) {
        await res.body?.cancel();
        return { ok: false, problem: 'bad_key', reason: `the server refused the key (HTTP ${res.status})` };
      }
      if (!res.ok) {
        await res.body?.cancel();
        return { ok: false, problem: 'bad_response', reason: `the server answered HTTP ${res.status}` };
      }
      const body = (await res.json().catch(() => null)) as { data?: { id?: unknown }[] } | null;
      const ids = Array.isArray(body?.data) ? body.data.map((m) => m.id) : null;
      if (ids && ids.length > 0 && !ids.includes(model))
        return { ok: false, problem: 'bad_model', reason: `the server has no model "${model}"` };
      return { ok: true };
    } catch {
      return { ok: false, problem: 'unreachable', reason: `${baseUrl} could not be reached` };
    }
  }

  const voiceIds = options.voices ?? OPENAI_VOICES;
  return {
    name: 'openai',
    sampleRate: RATE,
    stream,
    check,
    voices: async (): Promise<VendorVoice[]> =>
      voiceIds.map((id) => ({
        id,
        name: id,
        gender: null,
        languages: ['en-US'],
        description: 'OpenAI speech voice.',
      })),
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
