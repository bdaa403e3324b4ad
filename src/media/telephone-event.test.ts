import { describe, expect, it } from 'vitest';
import { encodeTelephoneEvent, parseTelephoneEvent, writeTelephoneEvent } from './telephone-event.ts';

describe('RFC 4733 telephone-event payload', () => {
  it('lays out event, end bit, volume and duration as section 2.3 draws them', () => {
    expect(Array.from(encodeTelephoneEvent({ event: 11, end: true, volume: 10, duration: 0x0320 }))).toEqual([
      11, 0x8a, 0x03, 0x20,
    ]);
    expect(Array.from(encodeTelephoneEvent({ event: 0, end: false, volume: 63, duration: 65535 }))).toEqual([
      0, 0x3f, 0xff, 0xff,
    ]);
  });

  it('parses what it encodes and ignores the reserved bit and anything after the 4 bytes', () => {
    for (const event of [
      { event: 5, end: false, volume: 10, duration: 160 },
      { event: 15, end: true, volume: 0, duration: 800 },
      { event: 16, end: true, volume: 36, duration: 1 },
    ]) {
      expect(parseTelephoneEvent(encodeTelephoneEvent(event))).toEqual(event);
    }
    expect(parseTelephoneEvent(Uint8Array.of(3, 0xca, 0, 160, 9, 9))).toEqual({
      event: 3,
      end: true,
      volume: 10,
      duration: 160,
    });
  });

  it('answers null for a short payload and refuses out-of-range fields when encoding', () => {
    expect(parseTelephoneEvent(Uint8Array.of(1, 2, 3))).toBeNull();
    expect(() => encodeTelephoneEvent({ event: 256, end: false, volume: 0, duration: 0 })).toThrow(
      RangeError,
    );
    expect(() => encodeTelephoneEvent({ event: 1, end: false, volume: 64, duration: 0 })).toThrow(RangeError);
    expect(() => encodeTelephoneEvent({ event: 1, end: false, volume: 1, duration: 65536 })).toThrow(
      RangeError,
    );
    expect(() =>
      writeTelephoneEvent({ event: 1, end: false, volume: 1, duration: 1 }, new Uint8Array(3)),
    ).toThrow(RangeError);
  });
});
