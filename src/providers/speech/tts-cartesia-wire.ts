import type { SampleRate } from '../../media/index.ts';
import { decodeBase64 } from './tts-hosted-b64.ts';
import { field } from './tts-hosted-http.ts';
import type { TTSWire, WireEvent } from './tts-hosted-stream.ts';
import type { TTSOptions } from './types.ts';

// Cartesia's TTS WebSocket: one `context_id` per segment. Every input of a context repeats the
// whole request (Cartesia requires all fields but the transcript and `continue` to stay the same),
// with `continue: true` while text streams in and an empty transcript with `continue: false` at
// the flush. `done` ends the context; `cancel` stops it.

/** Cartesia takes speeds from 0.6 to 1.5 (`generation_config.speed`, sonic-3). */
export const CARTESIA_SPEED: [min: number, max: number] = [0.6, 1.5];

export interface CartesiaWireOptions {
  baseUrl: string;
  apiKey: string;
  version: string;
  model: string;
  voice: string;
  rate: SampleRate;
  options: TTSOptions;
}

const clamp = (value: number, [min, max]: [number, number]) => Math.min(max, Math.max(min, value));

/** The request fields every input of a context repeats. */
export function cartesiaRequest(w: CartesiaWireOptions): Record<string, unknown> {
  const { speed, language } = w.options;
  const code = language?.split('-')[0]?.toLowerCase();
  return {
    model_id: w.model,
    voice: { mode: 'id', id: w.voice },
    output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: w.rate },
    // Word times tell how much speech the audio should hold (a rate check).
    add_timestamps: true,
    ...(code ? { language: code } : {}),
    ...(speed !== undefined && Number.isFinite(speed) && speed > 0
      ? { generation_config: { speed: clamp(speed, CARTESIA_SPEED) } }
      : {}),
  };
}

export function cartesiaWire(w: CartesiaWireOptions): TTSWire {
  const request = cartesiaRequest(w);
  const timed = new Map<string, number>(); // the end of the last word timed, per context, in ms
  return {
    url: `${w.baseUrl}/tts/websocket?${new URLSearchParams({ cartesia_version: w.version })}`,
    headers: { authorization: `Bearer ${w.apiKey}`, 'cartesia-version': w.version },
    rate: w.rate,
    encoding: 'pcm_s16le',
    text: (id, transcript) => [{ ...request, context_id: id, transcript, continue: true }],
    finish: (id) => [{ ...request, context_id: id, transcript: '', continue: false }],
    cancel: (id) => [{ context_id: id, cancel: true }],
    bye: () => [],
    parse(message): WireEvent[] {
      const type = field(message, 'type');
      if (typeof type !== 'string') throw new Error('a message of no type');
      const context = field(message, 'context_id');
      if (type === 'error') {
        const status = Number(field(message, 'status_code') ?? 0);
        const detail = String(field(message, 'error') ?? field(message, 'message') ?? 'an error').slice(
          0,
          200,
        );
        const retryable = !(status === 400 || status === 401 || status === 403 || status === 404);
        return [{ kind: 'error', description: `the vendor reported: ${detail}`, retryable }];
      }
      if (type !== 'chunk' && type !== 'timestamps' && type !== 'done') return [{ kind: 'ignore' }];
      if (typeof context !== 'string') throw new Error('a message of no context');
      if (type === 'done') {
        timed.delete(context);
        return [{ kind: 'done', context }];
      }
      if (type === 'chunk') {
        const data = field(message, 'data');
        if (typeof data !== 'string') throw new Error('a chunk of no data');
        const events: WireEvent[] = [{ kind: 'audio', context, audio: decodeBase64(data) }];
        if (field(message, 'done') === true) events.push({ kind: 'done', context });
        return events;
      }
      const ends = field(field(message, 'word_timestamps'), 'end');
      if (!Array.isArray(ends)) return [{ kind: 'ignore' }];
      const last = timed.get(context) ?? 0;
      const end = Math.max(
        last,
        ...ends.filter((e): e is number => typeof e === 'number').map((e) => e * 1000),
      );
      timed.set(context, end);
      return [{ kind: 'aligned', context, ms: end - last }];
    },
  };
}
