// The RFC 4733 telephone-event payload (section 2.3): one key press as 4 bytes, sent over RTP
// instead of tones so that a codec cannot smear it.
//
//   0                   1                   2                   3
//   |     event     |E|R|  volume   |          duration             |

export interface TelephoneEvent {
  /** The event code: 0-15 for the DTMF keys (see dtmf-digits.ts), other codes for other tones. */
  readonly event: number;
  /** Set in the packets that end the event. */
  readonly end: boolean;
  /** Power level as -dBm0, 0-63 (so 10 is -10 dBm0). */
  readonly volume: number;
  /** The event's length so far, in RTP timestamp units, 0-65535. */
  readonly duration: number;
}

export const TELEPHONE_EVENT_BYTES = 4;

function check(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new RangeError(`telephone-event ${name} out of range: ${value}`);
}

/** Writes `event` into the first 4 bytes of `out`; returns 4. */
export function writeTelephoneEvent(event: TelephoneEvent, out: Uint8Array): number {
  check('event', event.event, 255);
  check('volume', event.volume, 63);
  check('duration', event.duration, 0xffff);
  if (out.length < TELEPHONE_EVENT_BYTES) throw new RangeError('telephone-event needs 4 bytes');
  out[0] = event.event;
  out[1] = (event.end ? 0x80 : 0) | event.volume;
  out[2] = event.duration >> 8;
  out[3] = event.duration & 0xff;
  return TELEPHONE_EVENT_BYTES;
}

export function encodeTelephoneEvent(event: TelephoneEvent): Uint8Array {
  const out = new Uint8Array(TELEPHONE_EVENT_BYTES);
  writeTelephoneEvent(event, out);
  return out;
}

/** Reads the event at the start of `payload`; null when it is shorter than 4 bytes. */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | null {
  if (payload.length < TELEPHONE_EVENT_BYTES) return null;
  return {
    event: payload[0]!,
    end: (payload[1]! & 0x80) !== 0,
    volume: payload[1]! & 0x3f,
    duration: (payload[2]! << 8) | payload[3]!,
  };
}
