import type { SampleRate } from '../../media/index.ts';
import { decodeBase64 } from './tts-hosted-b64.ts';
import { field } from './tts-hosted-http.ts';
import type { TTSWire, WireEvent } from './tts-hosted-stream.ts';
import type { TTSOptions } from './types.ts';

// ElevenLabs' multi-context WebSocket (`multi-stream-input`): one context per segment. On the
// single-context `stream-input` socket the end of a flushed segment is not marked (`isFinal`
// comes only at the end of the whole input), so a segment's last frame could not be told apart;
// here `close_context` after the flush makes the vendor answer `isFinal` for that context alone.

/** ElevenLabs takes speeds from 0.7 to 1.2 (voice_settings.speed). */
export const ELEVENLABS_SPEED: [min: number, max: number] = [0.7, 1.2];

export interface ElevenLabsWireOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  voice: string;
  rate: SampleRate;
  /** At 8 kHz, ask for mu-law (`ulaw_8000`, what telephone legs carry) instead of `pcm_8000`. */
  ulaw: boolean;
  options: TTSOptions;
}

const clamp = (value: number, [min, max]: [number, number]) => Math.min(max, Math.max(min, value));

/** The first message of a context: the agent's tuning and speed as ElevenLabs' voice_settings. */
export function voiceSettings(options: TTSOptions): Record<string, number> {
  const { tuning = {}, speed } = options;
  const settings: Record<string, number> = {};
  if (tuning.stability !== undefined) settings.stability = tuning.stability;
  if (tuning.similarityBoost !== undefined) settings.similarity_boost = tuning.similarityBoost;
  if (tuning.style !== undefined) settings.style = tuning.style;
  if (speed !== undefined && Number.isFinite(speed) && speed > 0)
    settings.speed = clamp(speed, ELEVENLABS_SPEED);
  return settings;
}

/** The speech an alignment times: where its last character ends, in ms from the chunk's start. */
function alignedMs(alignment: unknown): number {
  const starts = field(alignment, 'charStartTimesMs');
  // Both spellings are sent in the wild.
  const durations = field(alignment, 'charsDurationsMs') ?? field(alignment, 'charDurationsMs');
  if (!Array.isArray(starts) || !Array.isArray(durations)) return 0;
  let end = 0;
  starts.forEach((start, i) => {
    const duration: unknown = durations[i];
    if (typeof start === 'number' && typeof duration === 'number') end = Math.max(end, start + duration);
  });
  return end;
}

export function elevenLabsWire(w: ElevenLabsWireOptions): TTSWire {
  const ulaw = w.ulaw && w.rate === 8000;
  const query = new URLSearchParams({
    model_id: w.model,
    output_format: ulaw ? 'ulaw_8000' : `pcm_${w.rate}`,
    // The longest ElevenLabs allows: a voice session pauses between turns.
    inactivity_timeout: '180',
  });
  const language = w.options.language?.split('-')[0]?.toLowerCase();
  if (language) query.set('language_code', language);
  const settings = voiceSettings(w.options);
  return {
    url: `${w.baseUrl}/v1/text-to-speech/${encodeURIComponent(w.voice)}/multi-stream-input?${query}`,
    headers: { 'xi-api-key': w.apiKey },
    rate: w.rate,
    encoding: ulaw ? 'mulaw' : 'pcm_s16le',
    text: (id, text, first) => [
      ...(first
        ? [
            {
              text: ' ',
              context_id: id,
              ...(Object.keys(settings).length ? { voice_settings: settings } : {}),
            },
          ]
        : []),
      { text, context_id: id },
    ],
    finish: (id) => [
      { text: '', context_id: id, flush: true },
      { context_id: id, close_context: true },
    ],
    cancel: (id) => [{ context_id: id, close_context: true }],
    bye: () => [{ close_socket: true }],
    parse(message): WireEvent[] {
      if (typeof message !== 'object' || message === null || Array.isArray(message)) {
        throw new Error('not an object');
      }
      const error = field(message, 'error');
      if (error !== undefined && error !== null) {
        const detail = String(field(message, 'message') ?? error).slice(0, 200);
        const auth = /auth|api.?key|unauthori[sz]ed|forbidden/i.test(`${String(error)} ${detail}`);
        return [{ kind: 'error', description: `the vendor reported: ${detail}`, retryable: !auth }];
      }
      const context = field(message, 'contextId') ?? field(message, 'context_id');
      const audio = field(message, 'audio');
      const final = field(message, 'isFinal') === true || field(message, 'is_final') === true;
      if (typeof audio !== 'string' && !final) return [{ kind: 'ignore' }];
      if (typeof context !== 'string') throw new Error('a message of no context');
      const events: WireEvent[] = [];
      if (typeof audio === 'string' && audio.length > 0) {
        const alignment = field(message, 'alignment') ?? field(message, 'normalizedAlignment');
        events.push({ kind: 'audio', context, audio: decodeBase64(audio), alignedMs: alignedMs(alignment) });
      }
      if (final) events.push({ kind: 'done', context });
      return events;
    },
  };
}
