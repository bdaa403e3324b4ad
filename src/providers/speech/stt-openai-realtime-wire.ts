// OpenAI's realtime transcription wire (docs/providers/openai.md): the socket's URL, the events a
// stream sends, and the server events it reads, parsed once into what the adapter uses.

/** The rate the socket takes (`audio/pcm` is 16-bit little-endian mono at 24 kHz). */
export const REALTIME_RATE = 24000;

/** OpenAI refuses to commit less than 100 ms of audio. */
export const MIN_COMMIT_SAMPLES = (REALTIME_RATE * 100) / 1000;

/** `https://host/prefix/v1` becomes `wss://host/prefix/v1/realtime?intent=transcription`. */
export function realtimeUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http(s?):/, 'ws$1:')}/realtime?intent=transcription`;
}

/**
 * Whether a refused handshake means the server has no realtime socket (a self-hosted server with
 * only the file API): no such path or method, an upgrade it will not do, or a plain page.
 */
export function offersNoRealtime(status: number): boolean {
  return (
    status === 404 ||
    status === 405 ||
    status === 410 ||
    status === 426 ||
    status === 501 ||
    (status >= 200 && status < 400)
  );
}

export interface RealtimeSessionSettings {
  model: string;
  /** ISO 639-1 (`en`), when the agent has a language. */
  language?: string | undefined;
  /** The keywords, comma-separated; left out when empty. */
  prompt?: string | undefined;
}

/** The first event: a transcription session at 24 kHz, with our own endpointing (we commit). */
export function sessionUpdate(s: RealtimeSessionSettings): string {
  return JSON.stringify({
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: REALTIME_RATE },
          transcription: {
            model: s.model,
            ...(s.language ? { language: s.language } : {}),
            ...(s.prompt ? { prompt: s.prompt } : {}),
          },
          turn_detection: null,
        },
      },
    },
  });
}

/** 24 kHz samples as an `input_audio_buffer.append` event (base64 of 16-bit little-endian). */
export function appendEvent(samples: Int16Array): string {
  const bytes = Buffer.allocUnsafe(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) bytes.writeInt16LE(samples[i] ?? 0, i * 2);
  return JSON.stringify({ type: 'input_audio_buffer.append', audio: bytes.toString('base64') });
}

export const commitEvent = (): string => JSON.stringify({ type: 'input_audio_buffer.commit' });
export const clearEvent = (): string => JSON.stringify({ type: 'input_audio_buffer.clear' });

export type RealtimeMessage =
  /** The buffer became the item `itemId` (one per commit, in commit order). */
  | { kind: 'committed'; itemId: string }
  | { kind: 'delta'; itemId: string; delta: string }
  | { kind: 'completed'; itemId: string; transcript: string }
  | { kind: 'transcription_failed'; itemId: string; description: string }
  | { kind: 'error'; description: string }
  /** Events the adapter does not use (session.created, speech_started, rate_limits.updated...). */
  | { kind: 'other' }
  | { kind: 'garbage' };

const isObject = (v: unknown): v is { [key: string]: unknown } => typeof v === 'object' && v !== null;

/** A vendor's error as `code: message`, cut short (it is logged). */
function describeError(error: unknown): string {
  if (!isObject(error)) return 'unknown';
  const message = typeof error.message === 'string' ? error.message : '';
  const code = typeof error.code === 'string' ? error.code : '';
  return [code, message].filter(Boolean).join(': ').slice(0, 200) || 'unknown';
}

export function parseRealtimeMessage(text: string): RealtimeMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { kind: 'garbage' };
  }
  if (!isObject(raw) || typeof raw.type !== 'string') return { kind: 'garbage' };
  const itemId = typeof raw.item_id === 'string' ? raw.item_id : null;
  switch (raw.type) {
    case 'input_audio_buffer.committed':
      return itemId === null ? { kind: 'garbage' } : { kind: 'committed', itemId };
    case 'conversation.item.input_audio_transcription.delta':
      return itemId === null || typeof raw.delta !== 'string'
        ? { kind: 'garbage' }
        : { kind: 'delta', itemId, delta: raw.delta };
    case 'conversation.item.input_audio_transcription.completed':
      return itemId === null || typeof raw.transcript !== 'string'
        ? { kind: 'garbage' }
        : { kind: 'completed', itemId, transcript: raw.transcript.trim() };
    case 'conversation.item.input_audio_transcription.failed':
      return { kind: 'transcription_failed', itemId: itemId ?? '', description: describeError(raw.error) };
    case 'error':
      return { kind: 'error', description: describeError(raw.error) };
    default:
      return { kind: 'other' };
  }
}
