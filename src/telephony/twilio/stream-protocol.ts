// Media Streams messages as Twilio documents them
// (https://www.twilio.com/docs/voice/media-streams/websocket-messages), bidirectional streams.
// From Twilio: connected, start, media, dtmf, mark, stop. To Twilio: media, mark, clear. Anything
// else, or a message missing a field we use, is ignored rather than trusted.

export type TwilioStreamEvent =
  | { event: 'connected' }
  | {
      event: 'start';
      streamSid: string;
      accountSid: string;
      callSid: string;
      customParameters: Record<string, string>;
      encoding: string;
      sampleRate: number;
    }
  | { event: 'media'; payload: string; track: string }
  | { event: 'dtmf'; digit: string }
  | { event: 'mark'; name: string }
  | { event: 'stop' };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** A message from Twilio, or null when it is none we act on. */
export function parseStreamMessage(text: string): TwilioStreamEvent | null {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(message)) return null;
  switch (message.event) {
    case 'connected':
      return { event: 'connected' };
    case 'start': {
      const start = message.start;
      if (!isRecord(start)) return null;
      const streamSid = str(start.streamSid) ?? str(message.streamSid);
      const accountSid = str(start.accountSid);
      const callSid = str(start.callSid);
      if (!streamSid || !accountSid || !callSid) return null;
      const customParameters: Record<string, string> = {};
      if (isRecord(start.customParameters))
        for (const [name, value] of Object.entries(start.customParameters))
          if (typeof value === 'string') customParameters[name] = value;
      const format = isRecord(start.mediaFormat) ? start.mediaFormat : {};
      return {
        event: 'start',
        streamSid,
        accountSid,
        callSid,
        customParameters,
        encoding: str(format.encoding) ?? '',
        sampleRate: typeof format.sampleRate === 'number' ? format.sampleRate : 0,
      };
    }
    case 'media': {
      const media = message.media;
      if (!isRecord(media)) return null;
      const payload = str(media.payload);
      if (payload === null) return null;
      return { event: 'media', payload, track: str(media.track) ?? 'inbound' };
    }
    case 'dtmf': {
      const digit = isRecord(message.dtmf) ? str(message.dtmf.digit) : null;
      return digit !== null && /^[0-9*#A-D]$/.test(digit) ? { event: 'dtmf', digit } : null;
    }
    case 'mark': {
      const name = isRecord(message.mark) ? str(message.mark.name) : null;
      return name === null ? null : { event: 'mark', name };
    }
    case 'stop':
      return { event: 'stop' };
    default:
      return null;
  }
}

export const mediaMessage = (streamSid: string, payload: string) =>
  JSON.stringify({ event: 'media', streamSid, media: { payload } });

export const markMessage = (streamSid: string, name: string) =>
  JSON.stringify({ event: 'mark', streamSid, mark: { name } });

export const clearMessage = (streamSid: string) => JSON.stringify({ event: 'clear', streamSid });
