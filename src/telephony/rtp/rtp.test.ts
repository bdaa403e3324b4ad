import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../core/index.ts';
import {
  DtmfDetector,
  SESSION_RATE,
  alawDecode,
  alawEncode,
  encodeTelephoneEvent,
  mulawDecode,
  mulawEncode,
  parseTelephoneEvent,
  dtmfTones,
  type AudioFrame,
} from '../../media/index.ts';
import { createRtpMedia } from './media.ts';
import { createRtpPeer, remoteOf, type RtpPeer } from './testing/peer.ts';
import type { RtpMedia } from './types.ts';

// RTP media in `caller` mode: the media runs on this thread on a manual clock's beat, so every
// 20 ms is stepped by the test; the sockets are real UDP sockets on 127.0.0.1.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port range of its own per test file run, away from the usual ephemeral ports. */
const BASE = 30_000 + 2 * Math.floor(Math.random() * 10_000);

function media(
  clock: ManualClock,
  options: { portMin?: number; portMax?: number; comfortSilence?: boolean } = {},
): RtpMedia {
  const m = createRtpMedia({
    bindAddress: '127.0.0.1',
    portMin: options.portMin ?? BASE,
    portMax: options.portMax ?? BASE + 40,
    clock,
    thread: 'caller',
    rtpTimeoutMs: 1_000,
    ...(options.comfortSilence === undefined ? {} : { comfortSilence: options.comfortSilence }),
  });
  cleanups.push(() => m.close());
  return m;
}

async function peer(): Promise<RtpPeer> {
  const p = await createRtpPeer();
  cleanups.push(() => p.close());
  return p;
}

/** Waits (real time, for the sockets) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const giveUp = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > giveUp) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function beats(clock: ManualClock, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await clock.tick(20);
}

const tone = (value: number): AudioFrame => ({
  samples: new Int16Array(320).fill(value),
  sampleRate: SESSION_RATE,
  at: 0,
});

function collector() {
  const frames: AudioFrame[] = [];
  const digits: string[] = [];
  return {
    frames,
    digits,
    receiver: { audio: (f: AudioFrame) => void frames.push(f), dtmf: (d: string) => void digits.push(d) },
  };
}

describe('RTP media (caller mode, real UDP)', () => {
  it('binds even ports in the range, refuses when none is left, and frees them on close', async () => {
    const clock = createManualClock();
    const m = media(clock, { portMin: BASE + 1, portMax: BASE + 5 });
    const a = await m.allocate();
    const b = await m.allocate();
    expect([a.port, b.port].sort()).toEqual([BASE + 2, BASE + 4]);
    expect(m.inUse).toBe(2);
    await expect(m.allocate()).rejects.toMatchObject({ code: 'rtp_ports_exhausted', status: 503 });
    a.close();
    a.close(); // idempotent
    expect(m.inUse).toBe(1);
    const c = await m.allocate();
    expect(c.port).toBe(BASE + 2);
    expect(() => createRtpMedia({ bindAddress: '127.0.0.1', portMin: 7, portMax: 7 })).toThrow(
      /no even port/,
    );
  });

  it('sends PCMU on the beat: our SSRC, sequence and timestamp, comfort silence, the marker on each talkspurt', async () => {
    const clock = createManualClock();
    const far = await peer();
    const endpoint = await media(clock).allocate();
    endpoint.update(remoteOf(far));
    await beats(clock, 2); // silence
    for (const v of [1000, 2000, 3000]) endpoint.play(tone(v));
    expect(endpoint.queuedMs).toBe(60);
    const drained = endpoint.drained();
    await beats(clock, 4);
    await drained;
    expect(endpoint.playedMs).toBe(60);
    await far.waitFor(6);
    const p = far.packets.slice(0, 6);
    expect(
      p.every((x) => x.payloadType === 0 && x.payload.length === 160 && x.fromPort === endpoint.port),
    ).toBe(true);
    expect(new Set(p.map((x) => x.ssrc)).size).toBe(1);
    for (let i = 1; i < 6; i += 1) {
      expect((p[i]!.sequence - p[i - 1]!.sequence) & 0xffff).toBe(1);
      expect((p[i]!.timestamp - p[i - 1]!.timestamp) >>> 0).toBe(160);
    }
    // The stream's first packet, then the first of the agent's talkspurt.
    expect(p.map((x) => x.marker)).toEqual([true, false, true, false, false, false]);
    expect(p[0]!.payload.every((b) => b === mulawEncode(new Int16Array([0]))[0])).toBe(true);
    const heard = mulawDecode(p[3]!.payload);
    expect(Math.abs(heard[80]! - 2000)).toBeLessThan(200);
    expect(endpoint.linkStats().framesOut).toBe(6);
  });

  it('without comfort silence sends nothing while quiet; the timestamp follows the clock across it', async () => {
    const clock = createManualClock();
    const far = await peer();
    const endpoint = await media(clock, { comfortSilence: false }).allocate();
    endpoint.update(remoteOf(far));
    endpoint.play(tone(500));
    await beats(clock, 5);
    endpoint.play(tone(500));
    await beats(clock, 2);
    await far.waitFor(2);
    await beats(clock, 2);
    expect(far.packets).toHaveLength(2);
    const [a, b] = far.packets;
    expect(b!.sequence).toBe((a!.sequence + 1) & 0xffff);
    expect((b!.timestamp - a!.timestamp) >>> 0).toBe(5 * 160);
    expect([a!.marker, b!.marker]).toEqual([true, true]);
  });

  it('receives PCMA through the jitter buffer at 8 kHz, in order, with loss and jitter counted', async () => {
    const clock = createManualClock();
    const far = await peer();
    const endpoint = await media(clock).allocate();
    const got = collector();
    endpoint.receive(got.receiver);
    endpoint.update(remoteOf(far, { codec: 'PCMA', payloadType: 8 }));
    const payload = (v: number) => alawEncode(new Int16Array(160).fill(v));
    // Sequence 10..15 with 12 missing and 14 before 13.
    for (const seq of [10, 11, 14, 13, 15]) {
      far.sendRtp(
        { payloadType: 8, sequence: seq, timestamp: seq * 160, ssrc: 99, payload: payload(seq * 100) },
        endpoint.port,
      );
    }
    await until(() => endpoint.linkStats().framesIn === 5, 'five packets in');
    await beats(clock, 8);
    const levels = got.frames.map((f) => f.samples[0]!);
    expect(got.frames.every((f) => f.sampleRate === 8000 && f.samples.length === 160)).toBe(true);
    const played = levels.filter((v) => v !== 0);
    expect(played).toEqual([10, 11, 13, 14, 15].map((s) => alawDecode(payload(s * 100))[0]!));
    // The gap at 12 is concealed with a frame of silence in its place.
    const at11 = levels.indexOf(played[1]!);
    expect(levels[at11 + 1]).toBe(0);
    const stats = endpoint.linkStats();
    expect(stats).toMatchObject({ framesIn: 5, framesLost: 1, framesReordered: 1, framesRefused: 0 });
    expect(stats.packetLoss).toBeCloseTo(1 / 6, 4);
    expect(stats.jitterMs).not.toBeNull();
    // Frames are timed on the beat, 20 ms apart.
    expect(got.frames[1]!.at - got.frames[0]!.at).toBe(20);
  });

  it('latches onto the source of the first valid packets, ignores every other source, and drops garbage cheaply', async () => {
    const clock = createManualClock();
    const sdp = await peer(); // what the far end's SDP said
    const nat = await peer(); // where its packets really come from
    const intruder = await peer();
    const m = media(clock);
    const endpoint = await m.allocate();
    const other = await m.allocate();
    const got = collector();
    endpoint.receive(got.receiver);
    const otherGot = collector();
    other.receive(otherGot.receiver);
    endpoint.update(remoteOf(sdp));
    other.update(remoteOf(sdp));
    await beats(clock, 1);
    await sdp.waitFor(2); // before any packet came: to the SDP's address
    const speech = mulawEncode(new Int16Array(160).fill(4000));
    for (let seq = 0; seq < 6; seq += 1)
      nat.sendRtp(
        { payloadType: 0, sequence: seq, timestamp: seq * 160, ssrc: 5, payload: speech },
        endpoint.port,
      );
    await until(() => endpoint.linkStats().framesIn === 6, 'six packets in');
    // A flood: garbage, wrong version, wrong payload type, and valid packets from another address.
    // (In rounds of 30, so the socket's receive buffer never overflows and every packet counts.)
    for (let round = 0; round < 10; round += 1) {
      for (let i = 0; i < 10; i += 1) {
        intruder.send(new Uint8Array(i * 4).fill(0x55), endpoint.port);
        const intruding = { payloadType: 0, sequence: 100 + i, timestamp: 0, ssrc: 6, payload: speech };
        intruder.sendRtp(intruding, endpoint.port);
        nat.sendRtp({ payloadType: 96, sequence: 6, timestamp: 0, ssrc: 5, payload: speech }, endpoint.port);
      }
      await until(() => endpoint.linkStats().framesRefused === 30 * (round + 1), 'the flood refused');
    }
    expect(endpoint.linkStats().framesIn).toBe(6);
    await beats(clock, 6);
    await nat.waitFor(3);
    expect(nat.packets.every((p) => p.fromPort === endpoint.port)).toBe(true);
    expect(intruder.packets).toHaveLength(0);
    expect(got.frames.filter((f) => f.samples[0] !== 0)).toHaveLength(6);
    // The other call heard nothing of it, and kept its beat.
    expect(other.linkStats()).toMatchObject({ framesIn: 0, framesRefused: 0 });
    expect(otherGot.frames).toHaveLength(7);
  });

  it('reports an RFC 4733 key once per press, and in-band tones when no telephone-event was negotiated', async () => {
    const clock = createManualClock();
    const far = await peer();
    const m = media(clock);
    const events = await m.allocate();
    const got = collector();
    events.receive(got.receiver);
    events.update(remoteOf(far));
    let seq = 0;
    for (const [end, duration] of [
      [false, 160],
      [false, 320],
      [true, 800],
      [true, 800],
      [true, 800],
    ] as const) {
      const payload = encodeTelephoneEvent({ event: 5, end, volume: 10, duration });
      far.sendRtp(
        { payloadType: 101, marker: seq === 0, sequence: seq++, timestamp: 8000, ssrc: 1, payload },
        events.port,
      );
    }
    await beats(clock, 1);
    await until(() => got.digits.length > 0, 'a key');
    await beats(clock, 2);
    expect(got.digits).toEqual(['5']);

    const inband = await m.allocate();
    const heard = collector();
    inband.receive(heard.receiver);
    inband.update(remoteOf(far, { telephoneEvent: null }));
    const tones = mulawEncode(dtmfTones('7', { sampleRate: 8000 }));
    for (let i = 0; i < tones.length / 160; i += 1) {
      far.sendRtp(
        {
          payloadType: 0,
          sequence: i,
          timestamp: i * 160,
          ssrc: 2,
          payload: tones.subarray(i * 160, (i + 1) * 160),
        },
        inband.port,
      );
    }
    await until(() => inband.linkStats().framesIn === tones.length / 160, 'the tones in');
    await beats(clock, 15);
    expect(heard.digits).toEqual(['7']);
  });

  it('sends keys as RFC 4733 events when negotiated, else as tones in the audio', async () => {
    const clock = createManualClock();
    const far = await peer();
    const m = media(clock, { comfortSilence: false });
    const endpoint = await m.allocate();
    endpoint.update(remoteOf(far));
    let sent = false;
    const done = endpoint.sendDtmf('1#').then(() => (sent = true));
    await beats(clock, 20);
    await done;
    expect(sent).toBe(true);
    await far.waitFor(14);
    const events = far.packets.filter((p) => p.payloadType === 101);
    const parsed = events.map((p) => parseTelephoneEvent(p.payload)!);
    expect(parsed.map((e) => e.event)).toEqual([1, 1, 1, 1, 1, 1, 1, 11, 11, 11, 11, 11, 11, 11]);
    expect(parsed.filter((e) => e.end)).toHaveLength(6);
    expect(events.filter((p) => p.marker)).toHaveLength(2);
    expect(new Set(events.map((p) => p.timestamp)).size).toBe(2);
    await expect(endpoint.sendDtmf('x')).rejects.toThrow(/not a DTMF key/);

    const plain = await m.allocate();
    const toneFar = await peer();
    plain.update(remoteOf(toneFar, { telephoneEvent: null }));
    const tonesDone = plain.sendDtmf('9');
    await beats(clock, 12);
    await tonesDone;
    await toneFar.waitFor(10);
    expect(toneFar.packets.every((p) => p.payloadType === 0)).toBe(true);
    const detector = new DtmfDetector(8000);
    expect(toneFar.packets.map((p) => detector.push(mulawDecode(p.payload))).join('')).toBe('9');
  });

  it('on hold sends nothing and suspends the RTP timeout; resumed, the timeout fires once', async () => {
    const clock = createManualClock();
    const far = await peer();
    const endpoint = await media(clock).allocate();
    let timeouts = 0;
    endpoint.onTimeout(() => (timeouts += 1));
    endpoint.update(remoteOf(far, { direction: 'inactive' }));
    endpoint.play(tone(1000));
    await beats(clock, 60); // 1.2 s: past the 1 s timeout
    expect(far.packets).toHaveLength(0);
    expect(timeouts).toBe(0);
    expect(endpoint.playedMs).toBe(20); // played to nobody: the session's positions still move
    endpoint.update(remoteOf(far, { direction: 'sendrecv' }));
    await beats(clock, 3);
    await far.waitFor(3);
    await beats(clock, 45); // 960 ms since the resume
    expect(timeouts).toBe(0);
    // A packet from the far end gives it the full time again.
    const speech = mulawEncode(new Int16Array(160));
    far.sendRtp({ payloadType: 0, sequence: 1, timestamp: 0, ssrc: 9, payload: speech }, endpoint.port);
    await until(() => endpoint.linkStats().framesIn === 1, 'a packet in');
    await beats(clock, 45);
    expect(timeouts).toBe(0);
    await beats(clock, 10);
    expect(timeouts).toBe(1);
    await beats(clock, 100);
    expect(timeouts).toBe(1);
  });

  it('clear() drops what is queued; playedMs counts only what left', async () => {
    const clock = createManualClock();
    const far = await peer();
    const endpoint = await media(clock).allocate();
    endpoint.update(remoteOf(far));
    for (let i = 0; i < 10; i += 1) endpoint.play(tone(100));
    await beats(clock, 3);
    endpoint.clear();
    expect(endpoint.queuedMs).toBe(0);
    await endpoint.drained();
    await beats(clock, 3);
    expect(endpoint.playedMs).toBe(60);
  });
});
