import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import { FrameRing } from '../pacing/index.ts';
import { MediaHost, addressLookup } from './host.ts';
import { createRtpMedia } from './media.ts';
import {
  SendTimingRecorder,
  TIMING_BUCKETS,
  latenessAbove,
  latenessPercentile,
  readSendTiming,
  sendTimingBuffer,
  timingSince,
} from './send-timing.ts';
import { endpointBuffer, endpointView, SEND_LAST_AT } from './shared.ts';
import { createRtpPeer, remoteOf, type RtpPeer } from './testing/peer.ts';

// The media thread's send timing: fixed 10 µs buckets in shared memory, per packet (how late it
// left against its slot on the 20 ms grid) and per tick (how late the thread woke). The clock is
// injected: a packet's lateness is exactly what the test sets it to.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const BASE = 30_000 + 2 * Math.floor(Math.random() * 10_000);

describe('send timing counters', () => {
  it('counts each value in its 10 µs bucket, with the count, sum, max and min', () => {
    const buffer = sendTimingBuffer();
    const empty = readSendTiming(buffer).packets;
    expect(empty.count).toBe(0);
    expect(empty.maxMs).toBeNaN();
    expect(latenessPercentile(empty, 99)).toBeNaN();

    const recorder = new SendTimingRecorder(buffer);
    for (const ms of [0, 0.004, -0.5, 1.23, 4.99, 5, 250]) recorder.packet(ms);
    recorder.tick(0.7);
    const { packets, ticks } = readSendTiming(buffer);
    expect(packets.count).toBe(7);
    expect(packets.sumMs).toBeCloseTo(260.724, 9);
    expect(packets.maxMs).toBe(250);
    expect(packets.minMs).toBe(-0.5);
    // Early and on time share the first bucket; past 100 ms, the last one.
    expect(packets.buckets[0]).toBe(3);
    expect(packets.buckets[123]).toBe(1);
    expect(packets.buckets[499]).toBe(1);
    expect(packets.buckets[500]).toBe(1);
    expect(packets.buckets[TIMING_BUCKETS]).toBe(1);
    expect(packets.buckets.reduce((a, b) => a + b, 0)).toBe(7);
    expect(ticks.count).toBe(1);
    expect(ticks.buckets[70]).toBe(1);

    // Percentiles: the upper edge of the bucket the rank falls in; past 100 ms, the max.
    expect(latenessPercentile(packets, 10)).toBeCloseTo(0.01, 9);
    expect(latenessPercentile(packets, 50)).toBeCloseTo(1.24, 9);
    expect(latenessPercentile(packets, 80)).toBeCloseTo(5.01, 9);
    expect(latenessPercentile(packets, 100)).toBe(250);
    expect(latenessAbove(packets, 5)).toBe(2);
    expect(latenessAbove(packets, 4.99)).toBe(3);
  });

  it('gives a window between two reads: counts subtracted, its own max', () => {
    const buffer = sendTimingBuffer();
    const recorder = new SendTimingRecorder(buffer);
    recorder.packet(30);
    const before = readSendTiming(buffer).packets;
    for (const ms of [0.2, 0.3, 2.345]) recorder.packet(ms);
    const window = timingSince(readSendTiming(buffer).packets, before);
    expect(window.count).toBe(3);
    expect(window.sumMs).toBeCloseTo(2.845, 9);
    // The all-time max (30 ms) came before the window: the window's is its bucket's upper edge.
    expect(window.maxMs).toBeCloseTo(2.35, 9);
    expect(latenessPercentile(window, 50)).toBeCloseTo(0.31, 9);
    expect(latenessPercentile(window, 99)).toBeCloseTo(2.35, 9);

    // A new latest in the window is exact.
    const before2 = readSendTiming(buffer).packets;
    recorder.packet(41.5);
    expect(timingSince(readSendTiming(buffer).packets, before2).maxMs).toBe(41.5);
    // Nothing in a window: no max.
    const now = readSendTiming(buffer).packets;
    expect(timingSince(now, now).maxMs).toBeNaN();
  });

  it('refuses a buffer of the wrong size', () => {
    expect(() => new SendTimingRecorder(new SharedArrayBuffer(64))).toThrow(RangeError);
  });
});

describe("the media sockets' address lookup", () => {
  it('answers an IP address before it returns (the packet leaves inside send()), a name later', async () => {
    const answers: string[] = [];
    addressLookup('127.0.0.1', { family: 4 }, (err, address, family) => answers.push(`${address}/${family}`));
    addressLookup('::1', { family: 6 }, (err, address, family) => answers.push(`${address}/${family}`));
    expect(answers).toEqual(['127.0.0.1/4', '::1/6']);
    const named = new Promise<string>((resolve) =>
      addressLookup('localhost', { family: 4 }, (err, address) => resolve(err ? 'error' : address)),
    );
    expect(answers).toHaveLength(2);
    expect(await named).toBe('127.0.0.1');
  });
});

describe('send timing in the media thread', () => {
  async function peer(): Promise<RtpPeer> {
    const p = await createRtpPeer();
    cleanups.push(() => p.close());
    return p;
  }

  it('stamps each packet as it leaves against its slot, and each tick as it starts', async () => {
    let now = 0;
    const timing = sendTimingBuffer();
    const host = new MediaHost(
      {
        bindAddress: '127.0.0.1',
        portMin: BASE,
        portMax: BASE + 10,
        timeoutMs: 30_000,
        comfortSilence: true,
      },
      () => now,
      timing,
    );
    cleanups.push(() => host.closeAll());
    const far = await peer();
    // Session 1 sends on tick 1 of 4, session 2 on tick 2.
    const views = [1, 2].map(() => {
      const endpoint = endpointBuffer();
      endpointView(endpoint).send[SEND_LAST_AT] = Number.NaN;
      return { endpoint, ring: new FrameRing() };
    });
    await host.open(1, views[0]!.endpoint, views[0]!.ring.buffer);
    await host.open(2, views[1]!.endpoint, views[1]!.ring.buffer);
    host.update(1, remoteOf(far));
    host.update(2, remoteOf(far));

    // Tick 1 at 1000 ms, run 2.5 ms late: session 1's comfort silence leaves 2.5 ms late.
    now = 1002.5;
    host.beat(1000, 1, 4);
    // Tick 2 at 1005 ms, on time.
    now = 1005;
    host.beat(1005, 2, 4);
    // Tick 3: nobody's; the tick still counts.
    now = 1010.25;
    host.beat(1010, 3, 4);
    await far.waitFor(2);

    const { packets, ticks } = readSendTiming(timing);
    expect(packets.count).toBe(2);
    expect(packets.buckets[250]).toBe(1);
    expect(packets.buckets[0]).toBe(1);
    expect(packets.maxMs).toBe(2.5);
    expect(ticks.count).toBe(3);
    expect([ticks.buckets[250], ticks.buckets[0], ticks.buckets[25]]).toEqual([1, 1, 1]);
  });

  it('reads through RtpMedia: every packet the far end got, each on its slot of a manual clock', async () => {
    const clock = createManualClock();
    const media = createRtpMedia({
      bindAddress: '127.0.0.1',
      portMin: BASE + 20,
      portMax: BASE + 30,
      clock,
      thread: 'caller',
    });
    cleanups.push(() => media.close());
    const far = await peer();
    const endpoint = await media.allocate();
    endpoint.update(remoteOf(far));
    const before = media.sendTiming();
    for (let i = 0; i < 5; i += 1) await clock.tick(20);
    await far.waitFor(5);
    const window = timingSince(media.sendTiming().packets, before.packets);
    expect(window.count).toBe(far.packets.length);
    expect(window.maxMs).toBe(0);
    expect(media.sendTiming().ticks.count).toBeGreaterThanOrEqual(5);
  });
});
