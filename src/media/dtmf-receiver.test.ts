import { describe, expect, it } from 'vitest';
import { DTMF_DIGITS } from './dtmf-digits.ts';
import { TelephoneEventReceiver } from './dtmf-receiver.ts';
import { telephoneEventPackets, type TelephoneEventPacket } from './dtmf-sender.ts';
import { encodeTelephoneEvent } from './telephone-event.ts';

/** The packets of `digits` pressed one after another, 100 ms each with 100 ms between, from `start`. */
function presses(digits: string, start = 1000): TelephoneEventPacket[] {
  return [...digits].flatMap((digit, i) =>
    telephoneEventPackets(digit, { timestamp: (start + i * 1600) >>> 0 }),
  );
}

const receive = (receiver: TelephoneEventReceiver, packets: TelephoneEventPacket[]) =>
  packets.map((p) => receiver.push(p.payload, p.timestamp) ?? '').join('');

describe('TelephoneEventReceiver', () => {
  it('reports each of the 16 keys once, despite updates and the repeated end packets', () => {
    expect(receive(new TelephoneEventReceiver(), presses(DTMF_DIGITS))).toBe(DTMF_DIGITS);
  });

  it('reports the same key pressed twice as two presses', () => {
    expect(receive(new TelephoneEventReceiver(), presses('7733'))).toBe('7733');
  });

  it('still reports a press whose start packets were lost, and only once', () => {
    const packets = presses('12').filter((_, i) => i !== 0 && i !== 1 && i !== 7); // the first two packets of "1", the first of "2"
    expect(receive(new TelephoneEventReceiver(), packets)).toBe('12');
    const onlyEnds = presses('9').slice(-2);
    expect(receive(new TelephoneEventReceiver(), onlyEnds)).toBe('9');
  });

  it('ignores a straggler of an earlier press that arrives after the next one started', () => {
    const packets = presses('45');
    const late = packets.splice(6, 1); // the last end packet of "4"
    packets.splice(9, 0, ...late);
    expect(receive(new TelephoneEventReceiver(), packets)).toBe('45');
  });

  it('reports presses across the 32-bit timestamp wrap', () => {
    expect(receive(new TelephoneEventReceiver(), presses('*0#', 4294966000))).toBe('*0#');
  });

  it('takes the next segment of a long press for the same press', () => {
    const receiver = new TelephoneEventReceiver();
    const segment = (timestamp: number, duration: number, end: boolean) =>
      receiver.push(encodeTelephoneEvent({ event: 8, end, volume: 10, duration }), timestamp);
    expect(segment(0, 30000, false)).toBe('8');
    expect(segment(0, 65535, false)).toBeNull();
    expect(segment(65535, 4000, false)).toBeNull(); // segment 2 starts where segment 1 stands
    expect(segment(65535, 8000, true)).toBeNull();
    expect(segment(73535, 800, false)).toBe('8'); // the event had ended: a new press
  });

  it('ignores payloads that are not DTMF keys and forgets the stream on reset', () => {
    const receiver = new TelephoneEventReceiver();
    expect(receiver.push(Uint8Array.of(16, 10, 0, 160), 0)).toBeNull(); // flash
    expect(receiver.push(Uint8Array.of(1, 10), 0)).toBeNull(); // short
    expect(
      receiver.push(encodeTelephoneEvent({ event: 1, end: false, volume: 10, duration: 160 }), 500),
    ).toBe('1');
    receiver.reset();
    expect(receiver.push(encodeTelephoneEvent({ event: 1, end: true, volume: 10, duration: 800 }), 500)).toBe(
      '1',
    );
  });
});
