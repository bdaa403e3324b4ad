import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import type { AudioFrame } from '../../media/index.ts';
import { createCallerPacer, createFrameTicker } from '../pacing/index.ts';
import { WsMediaEdge } from './edge.ts';
import { createWsMediaLeg } from './leg.ts';
import type { WsMediaSocket } from './socket.ts';

// The WS media leg's link statistics: what its edge counted, with the arrival time of each
// message on the carrier's clock (for the jitter), and still there once the leg has ended.

function setup() {
  const clock = createManualClock();
  const sent: (string | Uint8Array)[] = [];
  const socket: WsMediaSocket = {
    send: (data) => void sent.push(data),
    close() {},
    onMessage() {},
    onClose() {},
  };
  const bound = createWsMediaLeg({
    sid: 'ws_test',
    socket,
    edge: new WsMediaEdge({ codec: 'pcmu', framing: 'rtp' }),
    ticker: createFrameTicker(clock),
    pacer: createCallerPacer(),
    now: () => clock.now(),
  });
  return { clock, sent, bound };
}

const tone = (i: number): AudioFrame => ({
  samples: Int16Array.from({ length: 320 }, (_, n) =>
    Math.round(6000 * Math.sin((2 * Math.PI * 300 * (i * 320 + n)) / 16000)),
  ),
  sampleRate: 16000,
  at: 0,
});

describe('WS media leg link statistics', () => {
  it('counts what came and went, times arrivals on the clock, and keeps the counts after the end', async () => {
    const { clock, sent, bound } = setup();
    const { leg } = bound;
    const client = new WsMediaEdge({
      codec: 'pcmu',
      framing: 'rtp',
      ssrc: 9,
      initialSequence: 0,
      initialTimestamp: 0,
    });
    leg.receive({ audio() {}, dtmf() {} });
    for (let i = 0; i < 5; i += 1) leg.play(tone(i));
    // 20 packets, one every 20 ms but every other one 6 ms late; packet 10 never comes.
    for (let i = 0; i < 20; i += 1) {
      const packet = client.encode(tone(i), i === 0);
      await clock.tick(i % 2 === 0 ? 14 : 26);
      if (i !== 10) bound.audio(packet);
    }
    await clock.tick(200);
    bound.closed();
    await leg.ended;
    const stats = leg.linkStats?.();
    expect(stats).toBeDefined();
    expect(stats).toMatchObject({
      framesIn: 19,
      framesLost: 1,
      framesLate: 0,
      framesRefused: 0,
      framesOut: 5,
      packetLoss: 1 / 20,
    });
    // Arrivals 26 and 14 ms apart for 20 ms of audio: each transit difference is 6 ms, but the
    // one across the lost packet (14 + 26 ms for 40 ms) is 0.
    let jitter = 0;
    for (let i = 1; i < 20; i += 1) if (i !== 10) jitter += ((i === 11 ? 0 : 6) - jitter) / 16;
    expect(stats!.jitterMs).toBeCloseTo(jitter, 6);
    expect(sent.filter((m) => typeof m !== 'string')).toHaveLength(5);
    bound.audio(client.encode(tone(20), false)); // after the end: not counted
    expect(leg.linkStats?.().framesIn).toBe(19);
    client.close();
  });
});
