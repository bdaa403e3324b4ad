import { describe, expect, it } from 'vitest';
import { telephoneEventPackets } from './dtmf-sender.ts';
import { parseTelephoneEvent } from './telephone-event.ts';

describe('telephoneEventPackets', () => {
  it('sends a 100 ms press as updates every 20 ms, then the end three times', () => {
    const packets = telephoneEventPackets('5', { timestamp: 48000 });
    expect(packets.map((p) => p.atMs)).toEqual([0, 20, 40, 60, 80, 100, 120]);
    expect(packets.map((p) => p.marker)).toEqual([true, false, false, false, false, false, false]);
    expect(packets.every((p) => p.timestamp === 48000)).toBe(true);
    expect(packets.map((p) => parseTelephoneEvent(p.payload))).toEqual([
      { event: 5, end: false, volume: 10, duration: 160 },
      { event: 5, end: false, volume: 10, duration: 320 },
      { event: 5, end: false, volume: 10, duration: 480 },
      { event: 5, end: false, volume: 10, duration: 640 },
      { event: 5, end: true, volume: 10, duration: 800 },
      { event: 5, end: true, volume: 10, duration: 800 },
      { event: 5, end: true, volume: 10, duration: 800 },
    ]);
  });

  it('counts durations in the negotiated clock and honours the options', () => {
    const packets = telephoneEventPackets('#', {
      timestamp: 7,
      clockRate: 48000,
      durationMs: 50,
      packetMs: 30,
      volume: 20,
    });
    expect(packets.map((p) => p.atMs)).toEqual([0, 30, 60, 90]);
    expect(packets.map((p) => parseTelephoneEvent(p.payload))).toEqual([
      { event: 11, end: false, volume: 20, duration: 1440 },
      { event: 11, end: true, volume: 20, duration: 2400 },
      { event: 11, end: true, volume: 20, duration: 2400 },
      { event: 11, end: true, volume: 20, duration: 2400 },
    ]);
  });

  it('marks the first end packet when the press fits one interval', () => {
    const packets = telephoneEventPackets('d', { timestamp: 0, durationMs: 20 });
    expect(packets.map((p) => [p.marker, parseTelephoneEvent(p.payload)?.end])).toEqual([
      [true, true],
      [false, true],
      [false, true],
    ]);
    expect(parseTelephoneEvent(packets[0]!.payload)?.event).toBe(15);
  });

  it('refuses what it cannot send', () => {
    expect(() => telephoneEventPackets('E', { timestamp: 0 })).toThrow(RangeError);
    expect(() => telephoneEventPackets('1', { timestamp: 0, durationMs: 0 })).toThrow(RangeError);
    expect(() => telephoneEventPackets('1', { timestamp: 0, clockRate: 48000, durationMs: 2000 })).toThrow(
      RangeError,
    );
  });
});
