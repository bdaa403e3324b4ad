// OpenAI-compatible transcription (docs/providers/openai.md). Where the server offers it, a
// stream is OpenAI's realtime transcription socket (stt-openai-realtime.ts). Otherwise (a
// self-hosted Whisper-style server refuses the handshake; remembered for the adapter's life), the
// file API: the audio of each utterance (from the last flush to this one) goes as a WAV to
// `POST {base}/audio/transcriptions` (multipart) when the voice session flushes; its text is that
// flush's final. Telephone audio is sent at 8 kHz as it came. Requests run at once; finals come
// out in flush order. A base URL makes self-hosted servers work.
import { createAsyncQueue, silentLogger, systemClock, type Clock, type Logger } from '../../core/index.ts';
import { Resampler, monoWav, type AudioFrame, type SampleRate } from '../../media/index.ts';
import { openRealtimeSTTStream, type RealtimeSTTConfig } from './stt-openai-realtime.ts';
import { OPENAI_DEFAULT_BASE_URL } from './tts-openai.ts';
import {
  SpeechError,
  type HostedSTT,
  type ProviderHealth,
  type STTOptions,
  type STTResult,
  type STTStream,
} from './types.ts';

export interface OpenAISTTOptions {
  /** May be empty for a self-hosted server that needs none. */
  apiKey: string;
  /** Default `https://api.openai.com/v1`. */
  baseUrl?: string;
  /** Default `gpt-4o-mini-transcribe`. */
  model?: string;
  /**
   * A transcription may take this long (default 10 000 ms): a file request, in real time; a
   * realtime commit's transcript, in ms of `clock`.
   */
  requestTimeoutMs?: number;
  /** File API: an utterance longer than this keeps only its end (default 60 000 ms). */
  maxUtteranceMs?: number;
  /**
   * `auto` (default): the realtime socket, and the file API from the first server that has none
   * (HTTP 404, 405, 410, 426, 501 or a plain page on the handshake). `realtime` or `file` force one.
   */
  transport?: OpenAISTTTransport;
  /** Realtime: the handshake may take this long (default 5000 ms of `clock`). */
  connectTimeoutMs?: number;
  /** Realtime: a message larger than this fails the stream (default 1 MiB). */
  maxMessageBytes?: number;
  clock?: Clock;
  logger?: Logger;
}

export type OpenAISTTTransport = 'auto' | 'realtime' | 'file';

export const OPENAI_DEFAULT_STT_MODEL = 'gpt-4o-mini-transcribe';

export function createOpenAISTT(options: OpenAISTTOptions): HostedSTT {
  const baseUrl = (options.baseUrl ?? OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const model = options.model ?? OPENAI_DEFAULT_STT_MODEL;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger();
  const timeoutMs = options.requestTimeoutMs ?? 10_000;
  const maxSamplesMs = options.maxUtteranceMs ?? 60_000;
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const scrub = (text: string) => (options.apiKey ? text.split(options.apiKey).join('[redacted]') : text);
  const transport = options.transport ?? 'auto';
  /** Set once a server refused the realtime handshake as having no such socket. */
  let realtimeMissing = false;
  const realtime: RealtimeSTTConfig = {
    baseUrl,
    apiKey: options.apiKey,
    model,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    finalTimeoutMs: timeoutMs,
    maxMessageBytes: options.maxMessageBytes ?? 1024 * 1024,
    maxHeldMs: 10_000,
    clock,
    logger,
  };

  function stream(streamOptions: STTOptions = {}): STTStream {
    if (transport === 'file' || (transport === 'auto' && realtimeMissing)) return fileStream(streamOptions);
    // The file stream that takes over is closed by the realtime one (on its signal too).
    const { signal: _signal, ...fileOptions } = streamOptions;
    return openRealtimeSTTStream(
      realtime,
      streamOptions,
      transport === 'auto'
        ? () => {
            realtimeMissing = true;
            return fileStream(fileOptions);
          }
        : null,
    );
  }

  function fileStream(streamOptions: STTOptions): STTStream {
    const results = createAsyncQueue<STTResult>();
    const stop = new AbortController();
    let rate: SampleRate | null = streamOptions.sampleRate ?? null;
    const resamplers = new Map<number, Resampler>();
    let pieces: Int16Array[] = [];
    let samples = 0;
    /** The flushes' answers in order: a text, or a failure, once known. */
    const answers: { text: string | null; failed: unknown }[] = [];
    let next = 0;
    const language = streamOptions.language?.split('-')[0]?.toLowerCase();
    const prompt = (streamOptions.keywords ?? []).join(', ');

    function emit() {
      for (
        let answer = answers[next];
        answer && (answer.text !== null || answer.failed);
        answer = answers[next]
      ) {
        if (answer.failed) {
          const error = answer.failed;
          const message = error instanceof Error ? error.message : String(error);
          logger.warn({ vendor: 'openai', reason: scrub(message) }, 'openai transcription failed');
          results.fail(
            error instanceof SpeechError
              ? error
              : new SpeechError(`openai transcription: ${scrub(message)}`, 'stt_failed', true),
          );
          stop.abort();
          return;
        }
        results.push({ kind: 'final', text: answer.text ?? '', at: clock.now() });
        next += 1;
      }
    }

    async function transcribe(answer: { text: string | null; failed: unknown }, wav: Buffer) {
      try {
        const form = new FormData();
        form.append('file', new Blob([wav], { type: 'audio/wav' }), 'utterance.wav');
        form.append('model', model);
        form.append('response_format', 'json');
        if (language) form.append('language', language);
        if (prompt) form.append('prompt', prompt);
        const res = await fetch(`${baseUrl}/audio/transcriptions`, {
          method: 'POST',
          headers: auth,
          body: form,
          signal: AbortSignal.any([stop.signal, AbortSignal.timeout(timeoutMs)]),
        });
        if (!res.ok) {
          await res.body?.cancel();
          throw new SpeechError(
            `openai transcription: HTTP ${res.status}`,
            'stt_failed',
            res.status !== 401 && res.status !== 403,
          );
        }
        const body = (await res.json().catch(() => null)) as { text?: unknown } | null;
        if (typeof body?.text !== 'string')
          throw new SpeechError('openai transcription: an answer without text', 'stt_failed', true);
        answer.text = body.text.trim();
      } catch (error) {
        if (results.closed) return;
        answer.failed =
          error instanceof SpeechError
            ? error
            : new SpeechError(
                `openai transcription: ${error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'the request failed'}`,
                'stt_failed',
                true,
                error,
              );
      }
      if (!results.closed) emit();
    }

    function samplesOf(frame: AudioFrame): Int16Array {
      rate ??= frame.sampleRate as SampleRate;
      if (frame.sampleRate === rate) return frame.samples.slice();
      let resampler = resamplers.get(frame.sampleRate);
      if (!resampler) {
        resampler = new Resampler(frame.sampleRate as SampleRate, rate);
        resamplers.set(frame.sampleRate, resampler);
      }
      const out = new Int16Array(resampler.maxOutput(frame.samples.length));
      return out.subarray(0, resampler.process(frame.samples, out));
    }

    const close = () => {
      stop.abort();
      results.close();
      pieces = [];
    };
    if (streamOptions.signal?.aborted) close();
    streamOptions.signal?.addEventListener('abort', close, { once: true });

    return {
      results,
      push(frame) {
        if (results.closed) return;
        const piece = samplesOf(frame);
        pieces.push(piece);
        samples += piece.length;
        // The end of an overlong utterance is what answers the question.
        while (rate && samples > (maxSamplesMs * rate) / 1000 && pieces.length > 1)
          samples -= pieces.shift()!.length;
      },
      flush() {
        if (results.closed || pieces.length === 0 || !rate) return;
        const all = new Int16Array(samples);
        let at = 0;
        for (const p of pieces) {
          all.set(p, at);
          at += p.length;
        }
        pieces = [];
        samples = 0;
        const answer = { text: null, failed: null };
        answers.push(answer);
        void transcribe(answer, monoWav(all, rate));
      },
      close() {
        streamOptions.signal?.removeEventListener('abort', close);
        close();
      },
    };
  }

  async function check(signal?: AbortSignal): Promise<ProviderHealth> {
    try {
      const res = await fetch(`${baseUrl}/models`, { headers: auth, ...(signal ? { signal } : {}) });
      await res.body?.cancel();
      if (res.status === 401 || res.status === 403)
        return { ok: false, problem: 'bad_key', reason: `the server refused the key (HTTP ${res.status})` };
      // Self-hosted transcription servers often have no model list: only a refusal is a problem.
      if (!res.ok && res.status !== 404)
        return { ok: false, problem: 'bad_response', reason: `the server answered HTTP ${res.status}` };
      return { ok: true };
    } catch {
      return { ok: false, problem: 'unreachable', reason: `${baseUrl} could not be reached` };
    }
  }

  // No partials on either transport: the socket's deltas come only after a flush (its commit).
  return { name: 'openai', partials: false, stream, check };
}
