import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../../core/index.ts';
import type { AudioFrame } from '../../media/index.ts';
import {
  createCallerPacer,
  createFrameTicker,
  createWorkerPacer,
  type FramePacer,
  type FrameRing,
  type FrameTick,
  type FrameTicker,
} from '../pacing/index.ts';
import { WIRE_COUNT, WRITE } from '../pacing/ring-layout.ts';
import { WS_JITTER_TARGET_FRAMES, WsMediaEdge, type WsCodec, type WsFraming } from './edge.ts';
import { SILENCE_AFTER_MS, createWsMediaLeg, type AfterIo } from './leg.ts';
import type { WsMediaSocket } from './socket.ts';

// The WS media leg on a manual clock: bare payloads reach the receiver as they arrive (a burst at
// once), with silence on the beat only when nothing came; RTP packets through the jitter buffer,
// one per beat; G.711 at 8 kHz. And its link statistics: what its edge counted, with the arrival
// time of each message on the carrier's clock (for the jitter), still there once the leg has ended.

function setup(codec: WsCodec = 'pcmu', framing: WsFraming = 'rtp', afterIo?: AfterIo) {
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
    edge: new WsMediaEdge({ codec, framing }),
    ticker: createFrameTicker(clock),
    pacer: createCallerPacer(),
    now: () => clock.now(),
    ...(afterIo ? { afterIo } : {}),
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

/** What the receiver got: each frame's value (all its samples are one), time, rate, and when it came. */
interface Heard {
  value: number;
  at: number;
  rate: number;
  samples: number;
  /** The clock when the receiver got it. */
  got: number;
}

function listen(bound: ReturnType<typeof setup>['bound'], clock: { now(): number }): Heard[] {
  const heard: Heard[] = [];
  bound.leg.receive({
    audio(frame) {
      const value = frame.samples[0]!;
      expect(frame.samples.every((s) => s === value)).toBe(true);
      heard.push({
        value,
        at: frame.at,
        rate: frame.sampleRate,
        samples: frame.samples.length,
        got: clock.now(),
      });
    },
    dtmf() {},
  });
  return heard;
}

/** A client edge sending L16 frames that are each one value (`k * 100`), so each is told apart. */
function l16Client(framing: WsFraming) {
  const client = new WsMediaEdge({ codec: 'l16', framing, ssrc: 5, initialSequence: 0, initialTimestamp: 0 });
  let first = true;
  return {
    frame(k: number): Uint8Array {
      const message = client.encode(
        { samples: new Int16Array(320).fill(k * 100), sampleRate: 16000, at: 0 },
        first,
      );
      first = false;
      return message;
    },
    close: () => client.close(),
  };
}

describe('WS media leg, the client audio', () => {
  it('hands bare payloads over as they come: a burst after a stall at once, not one per beat', async () => {
    const { clock, bound } = setup('l16', 'payload');
    const t0 = clock.now();
    const heard = listen(bound, clock);
    const client = l16Client('payload');
    // Steady: a frame 7 ms after each beat.
    for (let k = 1; k <= 5; k += 1) {
      await clock.tick(k === 1 ? 27 : 20);
      bound.audio(client.frame(k));
    }
    const steady = heard.filter((h) => h.value !== 0);
    expect(steady.map((h) => h.value)).toEqual([100, 200, 300, 400, 500]);
    // Each at once: no wait for the beat. A frame is timed as having started 20 ms before its
    // arrival (the client captured it over those 20 ms), but never at or before the silence the
    // leg filled in meanwhile (the beat at 20): the first at 21. The quiet ones after it (a level
    // of 100 and 200) catch up 4 ms each (37, 53); speech (300 and up) keeps its length.
    expect(steady.map((h) => h.got - t0)).toEqual([27, 47, 67, 87, 107]);
    expect(steady.map((h) => h.at - t0)).toEqual([21, 37, 53, 73, 93]);
    // The client stalls for 100 ms, then sends the 5 frames it held at once: all reach the
    // receiver then, timed when they started (the timeline ended at 113, within the back-fill of
    // the burst's start at 187).
    await clock.tick(100);
    const before = heard.length;
    for (let k = 6; k <= 10; k += 1) bound.audio(client.frame(k));
    const burst = heard.slice(before);
    expect(burst.map((h) => h.value)).toEqual([600, 700, 800, 900, 1000]);
    expect(burst.every((h) => h.got === t0 + 207)).toBe(true);
    expect(burst.map((h) => h.at - t0)).toEqual([113, 133, 153, 173, 193]);
    // And the frame after it is not held behind the burst either.
    await clock.tick(20);
    bound.audio(client.frame(11));
    expect(heard.at(-1)).toMatchObject({ value: 1100, got: t0 + 227, at: t0 + 213 });
    // The client pauses (the leg fills silence, the last at the beat of 400), then sends a whole
    // line at once (10 frames) at 400: all of it at once, 20 ms apart, after that silence (401 to
    // 581, so its audio ends at 601); the beats its audio covers get no silence.
    await clock.tick(173); // 400
    const line = heard.length;
    for (let k = 12; k <= 21; k += 1) bound.audio(client.frame(k));
    expect(heard.slice(line).map((h) => [h.value, h.at - t0, h.got - t0])).toEqual(
      Array.from({ length: 10 }, (_, i) => [(12 + i) * 100, 401 + i * 20, 400]),
    );
    // Beats from 420 to 660: 420 is within SILENCE_AFTER_MS of the line's arrival, 440-600 fall
    // inside its audio, so silence from 620 on.
    await clock.tick(260); // to 660
    expect(heard.slice(line + 10).map((h) => [h.value, h.at - t0])).toEqual([
      [0, 620],
      [0, 640],
      [0, 660],
    ]);
    expect(heard.every((h) => h.rate === 16000 && h.samples === 320)).toBe(true);
    client.close();
    bound.closed();
  });

  it("slips no silence into the client's speech when beats are caught up after our event loop stalled", async () => {
    const { clock, bound } = setup('l16', 'payload');
    const heard = listen(bound, clock);
    const client = l16Client('payload');
    // Steady: a frame 7 ms after each beat.
    for (let k = 1; k <= 3; k += 1) {
      await clock.tick(k === 1 ? 27 : 20);
      bound.audio(client.frame(k));
    }
    // Our event loop stalls for 100 ms: the beats of that time run late, all at once, before the
    // socket's frames of that time are read (timers run before I/O).
    clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
    for (let k = 4; k <= 8; k += 1) bound.audio(client.frame(k));
    const values = heard.map((h) => h.value);
    const from = values.indexOf(100);
    expect(values.slice(from)).toEqual([100, 200, 300, 400, 500, 600, 700, 800]);
    // A real silence still gets its silence, on the beats that are on time.
    await clock.tick(100);
    expect(heard.at(-1)?.value).toBe(0);
    client.close();
    bound.closed();
  });

  it("decides a beat's silence once the socket is read, and puts a burst after our stall back into the gap", async () => {
    // The check phase after the read, run by hand: Node runs timers, then reads the sockets, then
    // runs what setImmediate queued.
    const checks: (() => void)[] = [];
    const check = () => {
      for (const task of checks.splice(0)) task();
    };
    const { clock, bound } = setup('l16', 'payload', (task) => void checks.push(task));
    const t0 = clock.now();
    const heard = listen(bound, clock);
    const client = l16Client('payload');
    // Speech, steady: a frame 7 ms after each beat (levels of 400 and up: not quiet).
    for (let k = 4; k <= 6; k += 1) {
      await clock.tick(k === 4 ? 27 : 20);
      expect(checks).toHaveLength(1); // the beat waits for the read
      check();
      bound.audio(client.frame(k));
    }
    await clock.tick(13); // the beat of 80, on time: the last frame came 13 ms before it
    check();
    expect(heard.map((h) => [h.value, h.at - t0])).toEqual([
      [0, 20],
      [400, 21],
      [500, 41],
      [600, 61],
    ]);
    // Our event loop stalls for 200 ms. The beats of 100 to 280 run late, before the read: the
    // first of them, 33 ms after the last frame came, is not decided then (silence there would
    // split the speech), nor are the ones caught up after it: all wait for the read.
    clock.advance(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toHaveLength(4);
    expect(checks).toHaveLength(1);
    // The read: the 10 frames the client sent meanwhile, at once. They waited in the socket, so
    // they go back into the gap (the socket was last read at 80), 20 ms apart from where the
    // speech ended, rather than from 20 ms before they came (which would put them 180 ms ahead).
    for (let k = 7; k <= 16; k += 1) bound.audio(client.frame(k));
    check();
    expect(heard.slice(4).map((h) => [h.value, h.at - t0, h.got - t0])).toEqual(
      Array.from({ length: 10 }, (_, i) => [(7 + i) * 100, 81 + i * 20, 280]),
    );
    // A real pause while the beats run late still gets its silence, once the read found nothing:
    // from the first beat SILENCE_AFTER_MS after the last frame came (at 280) and past its audio
    // (which ends at 281).
    clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toHaveLength(14);
    check();
    expect(heard.slice(14).map((h) => [h.value, h.at - t0])).toEqual([
      [0, 320],
      [0, 340],
      [0, 360],
      [0, 380],
    ]);
    client.close();
    bound.closed();
  });

  it('fills a beat with silence only when nothing came for a beat and a bit', async () => {
    const { clock, bound } = setup('l16', 'payload');
    const t0 = clock.now();
    const heard = listen(bound, clock);
    const client = l16Client('payload');
    // Nothing came yet: silence on every beat.
    await clock.tick(60);
    expect(heard.map((h) => [h.value, h.at - t0])).toEqual([
      [0, 20],
      [0, 40],
      [0, 60],
    ]);
    // A frame every 20 ms, 1 ms before the beat and jittering up to 4 ms either way, across it:
    // no silence slips in between them.
    const offsets = [-1, 3, -4, 2, 4, -3, 1, -1, 4, -4];
    let t = 60;
    for (const [k, offset] of offsets.entries()) {
      const due = 80 + k * 20 + offset;
      await clock.tick(due - t);
      t = due;
      bound.audio(client.frame(k + 1));
    }
    const during = heard.slice(3);
    expect(during.map((h) => h.value)).toEqual(offsets.map((_, k) => (k + 1) * 100));
    // The client goes quiet (sends nothing) after its frame at 256 ms: the beat at 280 still
    // waits (24 ms), silence from the first beat SILENCE_AFTER_MS after it, then on every beat
    // (its audio, each frame timed from 20 ms before it came, ends at 256: short of those beats).
    expect(SILENCE_AFTER_MS).toBe(30);
    await clock.tick(320 - t);
    const quiet = heard.slice(3 + offsets.length);
    expect(quiet.map((h) => [h.value, h.at - t0])).toEqual([
      [0, 300],
      [0, 320],
    ]);
    // It speaks again: at once, timed right after the last silence filled in (the beat at 420;
    // 20 ms before it came would be 405, before that silence), and the beats stop filling (the
    // one at 440 is within SILENCE_AFTER_MS of its arrival at 425).
    await clock.tick(105);
    expect(heard).toHaveLength(3 + offsets.length + 7);
    bound.audio(client.frame(42));
    await clock.tick(15);
    expect(heard.slice(3 + offsets.length + 7)).toMatchObject([{ value: 4200, at: t0 + 421 }]);
    client.close();
    bound.closed();
  });

  it('plays RTP through the jitter buffer, one frame per beat from the third one held', async () => {
    expect(WS_JITTER_TARGET_FRAMES).toBe(3);
    const { clock, bound } = setup('l16', 'rtp');
    const t0 = clock.now();
    const heard = listen(bound, clock);
    const client = l16Client('rtp');
    // Packets 7 ms after each beat; a burst of three after a stall.
    const sendAt = [27, 47, 67, 147, 147, 147, 167];
    let t = 0;
    for (const [k, at] of sendAt.entries()) {
      await clock.tick(at - t);
      t = at;
      bound.audio(client.frame(k + 1));
    }
    await clock.tick(240 - t);
    const audio = heard.filter((h) => h.value !== 0);
    // The first plays on the beat after the third came (80 ms, 53 ms after it came), then one
    // per beat; the jitter buffer ran dry while the client stalled, and the burst of three filled
    // it again, to play on the next beat.
    expect(audio.map((h) => [h.value, h.at - t0])).toEqual([
      [100, 80],
      [200, 100],
      [300, 120],
      [400, 160],
      [500, 180],
      [600, 200],
      [700, 220],
    ]);
    expect(heard.every((h) => h.got === h.at)).toBe(true);
    client.close();
    bound.closed();
  });

  it.each(['rtp', 'payload'] as const)('hands G.711 (%s) over at 8 kHz, silence too', async (framing) => {
    const { clock, bound } = setup('pcma', framing);
    const heard = listen(bound, clock);
    await clock.tick(40);
    const client = new WsMediaEdge({ codec: 'pcma', framing });
    for (let k = 0; k < 4; k += 1) {
      bound.audio(client.encode({ samples: new Int16Array(320), sampleRate: 16000, at: 0 }, k === 0));
      await clock.tick(20);
    }
    expect(heard.length).toBeGreaterThanOrEqual(6);
    expect(heard.every((h) => h.rate === 8000 && h.samples === 160)).toBe(true);
    client.close();
    bound.closed();
  });
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

describe('WS media leg, frames written by the pacer worker', () => {
  /** A TCP pair on 127.0.0.1: the leg writes to `server`'s descriptor, the test reads `client`. */
  async function tcpPair(): Promise<{ server: Socket; client: Socket; fd: number; close(): void }> {
    const accepted: Socket[] = [];
    const listener = createServer((s) => accepted.push(s));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    const client = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => client.once('connect', resolve));
    while (accepted.length === 0) await sleep(1);
    const server = accepted[0]!;
    const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
    return {
      server,
      client,
      fd,
      close() {
        client.destroy();
        server.destroy();
        listener.close();
      },
    };
  }

  /** The server's binary WebSocket frames (unmasked, 7- or 16-bit length) as they arrive. */
  function frames(client: Socket): { messages: Buffer[] } {
    const out = { messages: [] as Buffer[] };
    let pending = Buffer.alloc(0);
    client.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (pending.length < 2) return;
        expect(pending[0]).toBe(0x82);
        const short = pending[1]!;
        const header = short < 126 ? 2 : 4;
        if (pending.length < header) return;
        const length = short < 126 ? short : pending.readUInt16BE(2);
        if (pending.length < header + length) return;
        out.messages.push(pending.subarray(header, header + length));
        pending = pending.subarray(header + length);
      }
    });
    return out;
  }

  const rtp = (b: Buffer) => ({
    marker: (b[1]! & 0x80) !== 0,
    sequence: b.readUInt16BE(2),
    timestamp: b.readUInt32BE(4),
  });

  async function until(done: () => boolean, ms = 3_000) {
    const start = Date.now();
    while (!done()) {
      if (Date.now() - start > ms) throw new Error('timed out');
      await sleep(5);
    }
  }

  /** The worker pacer, telling which rings it was given and which it let go. */
  function watchedPacer(): FramePacer & { rings: FrameRing[]; deleted: FrameRing[] } {
    const inner = createWorkerPacer();
    const rings: FrameRing[] = [];
    const deleted: FrameRing[] = [];
    return {
      rings,
      deleted,
      get mode() {
        return inner.mode;
      },
      add(ring, socket) {
        rings.push(ring);
        inner.add(ring, socket);
      },
      delete(ring) {
        deleted.push(ring);
        inner.delete(ring);
      },
      close: () => inner.close(),
    };
  }

  /** The main thread's beat, counting the beats it ran. */
  function countedTicker(): FrameTicker & { beats: number } {
    const inner = createFrameTicker(systemClock);
    const wrapped = new Map<FrameTick, FrameTick>();
    const ticker = {
      beats: 0,
      add(member: FrameTick) {
        const counted: FrameTick = {
          send(at) {
            member.send(at);
            ticker.beats += 1;
          },
          deliver: (at, caughtUp) => member.deliver(at, caughtUp),
        };
        wrapped.set(member, counted);
        inner.add(counted);
      },
      delete(member: FrameTick) {
        const counted = wrapped.get(member);
        if (counted) inner.delete(counted);
        wrapped.delete(member);
      },
      get size() {
        return inner.size;
      },
    };
    return ticker;
  }

  it('sends paced, byte for byte what the main thread sends, RTP counting on across a clear()', async () => {
    const pair = await tcpPair();
    const pacer = watchedPacer();
    const ticker = countedTicker();
    const received = frames(pair.client);
    const edgeOptions = {
      codec: 'pcmu' as const,
      framing: 'rtp' as const,
      ssrc: 0x11223344,
      initialSequence: 65_530,
      initialTimestamp: 2 ** 32 - 480,
    };
    let closing = 0;
    const lefts: number[] = [];
    /** Each frame's slot on the pacer's 20 ms grid, in the order the frames left. */
    const grids: number[] = [];
    const socket: WsMediaSocket = {
      send() {},
      close: () => pair.server.end(),
      onMessage() {},
      onClose() {},
      direct: () => ({
        fd: pair.fd,
        guard(hooks) {
          const internals = pair.server as unknown as { _destroy: (e: Error | null, cb: () => void) => void };
          const destroy = internals._destroy;
          internals._destroy = function (this: unknown, e, cb) {
            closing += 1;
            hooks.closing();
            destroy.call(this, e, cb);
          };
        },
        terminate: () => pair.server.destroy(),
      }),
      frameLeft: (gridAt, sentAt) => {
        lefts.push(sentAt - gridAt);
        grids.push(gridAt);
      },
    };
    const bound = createWsMediaLeg({
      sid: 'ws_direct',
      socket,
      edge: new WsMediaEdge(edgeOptions),
      ticker,
      pacer,
      now: () => Date.now(),
    });
    /** Waits for the worker to send `n` more beats, then for the main thread to hear them. */
    async function afterBeats(n: number) {
      const ring = pacer.rings[0]!;
      const wire = Atomics.load(ring.view.control, WIRE_COUNT) + n;
      await until(() => Atomics.load(ring.view.control, WIRE_COUNT) >= wire);
      const heard = ticker.beats + 1;
      await until(() => ticker.beats >= heard);
    }
    try {
      // A talkspurt: exactly the packets the main thread's encode gives, one every 20 ms.
      const reference = new WsMediaEdge(edgeOptions);
      const first = [...Array(10).keys()].map(tone);
      const expected = first.map((f, i) => Buffer.from(reference.encode(f, i === 0)));
      for (const f of first) bound.leg.play(f);
      await until(() => received.messages.length >= 10);
      expect(received.messages.slice(0, 10)).toEqual(expected);
      await bound.leg.drained();
      expect(bound.leg.playedMs).toBe(200);
      await until(() => lefts.length >= 10);
      // Never before its slot (how late depends on the machine, so it is not asserted).
      expect(lefts.every((late) => late >= 0)).toBe(true);
      // Paced: one frame a slot of the pacer's grid (its own schedule, however late the machine).
      expect(grids.slice(1, 10).map((at, i) => at - grids[i]!)).toEqual(Array(9).fill(20));

      // A second talkspurt cut by a barge-in: the frames cleared leave no sequence gap. (The
      // sleeps only make silences between the talkspurts.)
      await sleep(60);
      for (let i = 0; i < 200; i += 1) bound.leg.play(tone(i));
      await until(() => received.messages.length >= 13);
      bound.leg.clear();
      const cutAt = received.messages.length;
      await bound.leg.drained();

      // A third after a silence: where it starts tells how many of the second's frames left.
      await sleep(100);
      for (let i = 0; i < 3; i += 1) bound.leg.play(tone(i));
      await until(() => received.messages.slice(cutAt).some((m) => rtp(m).marker));
      const third = cutAt + received.messages.slice(cutAt).findIndex((m) => rtp(m).marker);
      const second = third - 10;
      expect(second).toBeGreaterThanOrEqual(3);
      expect(second).toBeLessThan(200);
      expect(third - cutAt).toBeLessThanOrEqual(1); // the clear stopped it within one frame
      await until(() => received.messages.length >= third + 3);
      await bound.leg.drained();
      expect(bound.leg.playedMs).toBe(200 + second * 20 + 60);
      await until(() => grids.length >= received.messages.length);
      const headers = received.messages.map((m) => rtp(m));
      headers.forEach((h, i) => {
        expect(received.messages[i]!.readUInt32BE(8)).toBe(0x11223344);
        expect(received.messages[i]!.length).toBe(12 + 160);
        expect(h.marker).toBe(i === 0 || i === 10 || i === 10 + second);
        if (i === 0) return;
        const before = headers[i - 1]!;
        expect(h.sequence).toBe((before.sequence + 1) % 65_536);
        const step = (h.timestamp - before.timestamp) >>> 0;
        if (!h.marker) expect(step).toBe(160);
        else {
          // Across a silence the timestamp moves on with the grid time that passed (5 ms ticks).
          expect(step % 40).toBe(0);
          expect(step).toBe(((grids[i]! - grids[i - 1]!) * 8000) / 1000);
        }
      });
      expect(headers[0]!.sequence).toBe(65_530);
      expect(headers[0]!.timestamp).toBe(2 ** 32 - 480);

      // The socket closes: the worker never writes to it again.
      await bound.leg.drained();
      // Frames out counts what left (seen on the beat after), not the frames cleared.
      const framesOut = () => bound.leg.linkStats?.().framesOut ?? -1;
      await until(() => framesOut() >= received.messages.length);
      await afterBeats(2);
      expect(framesOut()).toBe(received.messages.length);
      await bound.leg.hangup();
      // The pacer let the ring go, and what is played after the end is never queued.
      const ring = pacer.rings[0]!;
      expect(pacer.deleted).toEqual([ring]);
      const written = Atomics.load(ring.view.control, WRITE);
      bound.leg.play(tone(1));
      expect(Atomics.load(ring.view.control, WRITE)).toBe(written);
      expect(ring.queuedMs).toBe(0);
      pair.server.destroy();
      expect(closing).toBe(1);
    } finally {
      await pacer.close();
      pair.close();
    }
  });

  it('keeps to the main thread when told to (PARLEY_WS_MEDIA_SENDER=main) or with a caller pacer', async () => {
    for (const [pacer, direct] of [
      [createCallerPacer(), true],
      [createWorkerPacer(), false],
    ] as const) {
      let asked = 0;
      const socket: WsMediaSocket = {
        send() {},
        close() {},
        onMessage() {},
        onClose() {},
        direct: () => {
          asked += 1;
          return null;
        },
      };
      const bound = createWsMediaLeg({
        sid: 'ws_main',
        socket,
        edge: new WsMediaEdge({ codec: 'pcmu', framing: 'rtp' }),
        ticker: createFrameTicker(createManualClock()),
        pacer,
        now: () => 0,
        direct,
      });
      expect(asked).toBe(0);
      await bound.leg.hangup();
      await pacer.close();
    }
  });
});
