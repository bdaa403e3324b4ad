// The packets that send one key press as RFC 4733 telephone events (section 2.5.1): every packet of
// the event carries the RTP timestamp of its start and the duration so far; the first has the
// marker bit; one goes out per packet interval while the key is down; the last, with the end bit
// and the full duration, is sent three times so one lost packet does not lose the key's end.
import { dtmfEventCode } from './dtmf-digits.ts';
import { encodeTelephoneEvent } from './telephone-event.ts';

export interface TelephoneEventOptions {
  /** RTP timestamp of the event's start (the stream's clock at the key press). */
  timestamp: number;
  /** The telephone-event clock rate negotiated in SDP; default 8000. */
  clockRate?: number;
  /** How long the key is held; default 100 ms. */
  durationMs?: number;
  /** Interval between packets; default 20 ms. */
  packetMs?: number;
  /** Power level as -dBm0 (0-63); default 10. */
  volume?: number;
}

export interface TelephoneEventPacket {
  /** When to send it, in ms after the first. */
  readonly atMs: number;
  readonly marker: boolean;
  /** The RTP timestamp: the event's start, the same in every packet. */
  readonly timestamp: number;
  /** The 4-byte telephone-event payload. */
  readonly payload: Uint8Array;
}

const END_REPEATS = 3;

/** The packets for pressing `digit`, in sending order; each takes the stream's next sequence number. */
export function telephoneEventPackets(digit: string, options: TelephoneEventOptions): TelephoneEventPacket[] {
  const event = dtmfEventCode(digit);
  if (event < 0) throw new RangeError(`not a DTMF key: ${JSON.stringify(digit)}`);
  const clockRate = options.clockRate ?? 8000;
  const durationMs = options.durationMs ?? 100;
  const packetMs = options.packetMs ?? 20;
  const volume = options.volume ?? 10;
  if (!(durationMs > 0) || !(packetMs > 0)) throw new RangeError('durationMs and packetMs must be positive');
  const units = (ms: number) => Math.round((ms * clockRate) / 1000);
  const total = units(durationMs);
  // Longer events would need RFC 4733 segments (2.5.1.3); no key press is that long at 8 kHz.
  if (total > 0xffff)
    throw new RangeError(`a ${durationMs} ms event does not fit one telephone-event duration`);

  const packets: TelephoneEventPacket[] = [];
  const updates = Math.ceil(durationMs / packetMs);
  for (let i = 0; i < updates - 1; i += 1) {
    const payload = encodeTelephoneEvent({ event, end: false, volume, duration: units((i + 1) * packetMs) });
    packets.push({ atMs: i * packetMs, marker: i === 0, timestamp: options.timestamp, payload });
  }
  const end = encodeTelephoneEvent({ event, end: true, volume, duration: total });
  for (let r = 0; r < END_REPEATS; r += 1) {
    const i = updates - 1 + r;
    packets.push({ atMs: i * packetMs, marker: i === 0, timestamp: options.timestamp, payload: end });
  }
  return packets;
}
