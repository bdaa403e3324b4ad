import { afterEach, describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../media/index.ts';
import {
  WS_CODECS,
  WS_CODEC_INFO,
  WS_FRAMINGS,
  WS_JITTER_MAX_FRAMES,
  WS_JITTER_TARGET_FRAMES,
  WS_PAYLOAD_TIMING,
  WsMediaEdge,
  type WsCodec,
  type WsFraming,
  type WsMediaEdgeOptions,
} from './edge.ts';

const FRAME_SAMPLES = 320; // 20 ms at 16 kHz
const RTP_HEADER_BYTES = 12;
/** What the edge hands over: G.711 as it travels, at 8 kHz; the others at 16 kHz. */
const RECEIVE_RATE: Record<WsCodec, 8000 | 16000> = { pcmu: 8000, pcma: 8000, l16: 16000, opus: 16000 };
/** The table of the task, written out again so the tests do not trust the module's own. */
const PAYLOAD_TYPE: Record<WsCodec, number> = { pcmu: 0, pcma: 8, l16: 96, opus: 111 };
const TIMESTAMP_STEP: Record<WsCodec, number> = { pcmu: 160, pcma: 160, l16: 320, opus: 960 };
const PAYLOAD_BYTES: Record<WsCodec, number | null> = { pcmu: 160, pcma: 160, l16: 640, opus: null };

const edges: WsMediaEdge[] = [];
/** A new edge, closed after the test (Opus holds native or wasm memory). */
function edgeOf(options: WsMediaEdgeOptions): WsMediaEdge {
  const edge = new WsMediaEdge(options);
  edges.push(edge);
  return edge;
}
afterEach(() => {
  for (const edge of edges.splice(0)) edge.close();
});

/** Frame `index` of a continuous 440 Hz sine at 16 kHz, amplitude 8000. */
function sineFrame(index: number): Int16Array {
  const samples = new Int16Array(FRAME_SAMPLES);
  for (let i = 0; i < FRAME_SAMPLES; i += 1) {
    const n = index * FRAME_SAMPLES + i;
    samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * n) / 16000));
  }
  return samples;
}

const constantFrame = (value: number): Int16Array => new Int16Array(FRAME_SAMPLES).fill(value);
const frameOf = (samples: Int16Array, at = 0): AudioFrame => ({ samples, sampleRate: 16000, at });

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}

function zeroCrossings(samples: Int16Array): number {
  let count = 0;
  for (let i = 1; i < samples.length; i += 1) {
    if (samples[i - 1]! < 0 !== samples[i]! < 0) count += 1;
  }
  return count;
}

/** The fixed RTP header read byte by byte (RFC 3550 section 5.1), independent of media's parser. */
function readRtpHeader(bytes: Uint8Array) {
  const at = (i: number): number => bytes[i] ?? Number.NaN;
  return {
    version: at(0) >> 6,
    padding: (at(0) & 0x20) !== 0,
    extension: (at(0) & 0x10) !== 0,
    csrcCount: at(0) & 0x0f,
    marker: (at(1) & 0x80) !== 0,
    payloadType: at(1) & 0x7f,
    sequence: at(2) * 256 + at(3),
    timestamp: at(4) * 2 ** 24 + at(5) * 2 ** 16 + at(6) * 2 ** 8 + at(7),
    ssrc: at(8) * 2 ** 24 + at(9) * 2 ** 16 + at(10) * 2 ** 8 + at(11),
  };
}

/** Checks a frame handed over is 20 ms at the codec's receive rate. */
function expectShape(edge: WsMediaEdge, frame: AudioFrame): void {
  const rate = RECEIVE_RATE[edge.codec];
  expect(frame.sampleRate).toBe(rate);
  expect(frame.samples).toHaveLength((rate * 20) / 1000);
}

/** Calls `next()` for `ticks` ticks from `firstTick`; the frames that came out, each checked for shape. */
function drain(edge: WsMediaEdge, ticks = 20, firstTick = 0): AudioFrame[] {
  const frames: AudioFrame[] = [];
  for (let tick = firstTick; tick < firstTick + ticks; tick += 1) {
    const frame = edge.next(tick * 20);
    if (!frame) continue;
    expectShape(edge, frame);
    expect(frame.at).toBe(tick * 20);
    frames.push(frame);
  }
  return frames;
}

/** Everything `takeArrived` has after a message that came at `at`, each checked for shape. */
function arrived(edge: WsMediaEdge, at: number): AudioFrame[] {
  const frames: AudioFrame[] = [];
  for (let frame = edge.takeArrived(at); frame; frame = edge.takeArrived(at)) {
    expectShape(edge, frame);
    frames.push(frame);
  }
  return frames;
}

/**
 * One Opus packet of several 20 ms frames (RFC 6716 section 3.2.5: code 3, VBR) from single-frame
 * packets of one configuration, as a client packing 60 ms per packet sends it.
 */
function opusMultiFrame(packets: Uint8Array[]): Uint8Array {
  const toc = packets[0]![0]!;
  for (const packet of packets) {
    expect(packet[0]! & 3, 'a single-frame packet').toBe(0);
    expect(packet[0]! >> 2, 'one configuration').toBe(toc >> 2);
  }
  const frames = packets.map((packet) => packet.subarray(1));
  for (const frame of frames.slice(0, -1)) expect(frame.length).toBeLessThan(252); // one length byte
  const header = [(toc & 0xfc) | 3, 0x80 | frames.length, ...frames.slice(0, -1).map((f) => f.length)];
  const out = new Uint8Array(header.length + frames.reduce((n, f) => n + f.length, 0));
  out.set(header);
  frames.reduce((at, frame) => (out.set(frame, at), at + frame.length), header.length);
  return out;
}

/** The value of a frame whose samples are all one value (fails if they are not). */
function constantOf(frame: AudioFrame): number {
  const first = frame.samples[0]!;
  expect(frame.samples.every((sample) => sample === first)).toBe(true);
  return first;
}

describe('WS_CODEC_INFO', () => {
  it('matches the codec table', () => {
    expect(WS_CODECS).toEqual(['pcmu', 'pcma', 'l16', 'opus']);
    expect(WS_FRAMINGS).toEqual(['rtp', 'payload']);
    expect(WS_CODEC_INFO).toEqual({
      pcmu: { sampleRate: 8000, clockRate: 8000, payloadType: 0, payloadBytes: 160 },
      pcma: { sampleRate: 8000, clockRate: 8000, payloadType: 8, payloadBytes: 160 },
      l16: { sampleRate: 16000, clockRate: 16000, payloadType: 96, payloadBytes: 640 },
      opus: { sampleRate: 48000, clockRate: 48000, payloadType: 111, payloadBytes: null },
    });
  });
});

const COMBINATIONS: [WsCodec, WsFraming][] = WS_CODECS.flatMap((codec) =>
  WS_FRAMINGS.map((framing): [WsCodec, WsFraming] => [codec, framing]),
);

describe.each(COMBINATIONS)('%s with %s framing', (codec, framing) => {
  it('sends messages of the right size that a second edge turns back into the same tone', () => {
    const sender = edgeOf({ codec, framing });
    const receiver = edgeOf({ codec, framing });
    const header = framing === 'rtp' ? RTP_HEADER_BYTES : 0;
    const payloadBytes = PAYLOAD_BYTES[codec];
    const sent = 12;
    const received: AudioFrame[] = [];
    for (let i = 0; i < sent; i += 1) {
      const message = sender.encode(frameOf(sineFrame(i), i * 20), i === 0);
      if (payloadBytes === null) expect(message.length).toBeGreaterThan(header);
      else expect(message.length).toBe(header + payloadBytes);
      expect(receiver.accept(message)).toBeNull();
      if (framing === 'rtp') {
        expect(receiver.takeArrived(i * 20)).toBeNull(); // RTP waits for its tick
        received.push(...drain(receiver, 1, i));
      } else {
        // A bare payload is handed over as it comes, timed as having started 20 ms before its
        // arrival (the client captured it over those 20 ms); nothing waits for a tick.
        const frames = arrived(receiver, i * 20 + 7);
        expect(frames.map((f) => f.at)).toEqual([i * 20 - 13]);
        received.push(...frames);
        expect(receiver.next(i * 20 + 10)).toBeNull();
      }
    }
    // With RTP the jitter buffer holds WS_JITTER_TARGET_FRAMES before it plays: the frames sent
    // after the first that filled it come out after the last was sent.
    expect(received).toHaveLength(framing === 'rtp' ? sent - (WS_JITTER_TARGET_FRAMES - 1) : sent);
    received.push(...drain(receiver, 5, sent));
    expect(received).toHaveLength(sent);
    expect(receiver.next(1000)).toBeNull();

    // Past the resamplers' and the codec's warm-up the level and the pitch are the input's.
    const last = received.at(-1)!.samples;
    const inputRms = rms(sineFrame(sent - 1));
    expect(Math.abs(rms(last) - inputRms) / inputRms).toBeLessThan(0.25);
    // 440 Hz over 20 ms: 8.8 periods, 17 or 18 zero crossings.
    expect(zeroCrossings(last)).toBeGreaterThanOrEqual(16);
    expect(zeroCrossings(last)).toBeLessThanOrEqual(19);
    expect(receiver.stats).toEqual({ received: sent, refused: 0, lost: 0, late: 0, reordered: 0 });
  });

  it('returns a new array for every message', () => {
    const sender = edgeOf({ codec, framing });
    const first = sender.encode(frameOf(sineFrame(0)), true);
    const copy = first.slice();
    const second = sender.encode(frameOf(sineFrame(1)), false);
    expect(second).not.toBe(first);
    expect(first).toEqual(copy);
  });
});

describe.each(WS_CODECS)('RTP headers for %s', (codec) => {
  it('carry version 2, the payload type, one SSRC, the marker on talk-spurts, and wrapping counters', () => {
    const sender = edgeOf({
      codec,
      framing: 'rtp',
      ssrc: 0xdeadbeef,
      initialSequence: 65535,
      initialTimestamp: 0xffffff00,
    });
    const talkspurts = [true, false, false, true, false];
    const headers = talkspurts.map((start, i) => readRtpHeader(sender.encode(frameOf(sineFrame(i)), start)));
    for (const header of headers) {
      expect(header.version).toBe(2);
      expect(header.padding).toBe(false);
      expect(header.extension).toBe(false);
      expect(header.csrcCount).toBe(0);
      expect(header.payloadType).toBe(PAYLOAD_TYPE[codec]);
      expect(header.ssrc).toBe(0xdeadbeef);
    }
    expect(headers.map((h) => h.marker)).toEqual(talkspurts);
    expect(headers.map((h) => h.sequence)).toEqual([65535, 0, 1, 2, 3]);
    const step = TIMESTAMP_STEP[codec];
    expect(headers.map((h) => h.timestamp)).toEqual(
      talkspurts.map((_, i) => (0xffffff00 + i * step) % 2 ** 32),
    );
    expect(headers.at(-1)!.timestamp).toBeLessThan(0xffffff00); // wrapped past 2^32
  });
});

describe('WsMediaEdge', () => {
  it('picks a fixed SSRC and in-range counters by default', () => {
    const sender = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    const a = readRtpHeader(sender.encode(frameOf(sineFrame(0)), true));
    const b = readRtpHeader(sender.encode(frameOf(sineFrame(1)), false));
    expect(b.ssrc).toBe(a.ssrc);
    expect(b.sequence).toBe((a.sequence + 1) % 65536);
    expect(b.timestamp).toBe((a.timestamp + 160) % 2 ** 32);
    expect(Number.isInteger(a.ssrc) && a.ssrc >= 0 && a.ssrc < 2 ** 32).toBe(true);
  });

  it('sends L16 big-endian', () => {
    const samples = new Int16Array(FRAME_SAMPLES);
    samples[0] = 0x0102;
    samples[1] = -2;
    samples[319] = -32768;
    const payload = edgeOf({ codec: 'l16', framing: 'payload' }).encode(frameOf(samples), true);
    expect([...payload.subarray(0, 4)]).toEqual([0x01, 0x02, 0xff, 0xfe]);
    expect([...payload.subarray(638)]).toEqual([0x80, 0x00]);
    expect(payload.subarray(4, 638).every((byte) => byte === 0)).toBe(true);
    const packet = edgeOf({ codec: 'l16', framing: 'rtp' }).encode(frameOf(samples), true);
    expect([...packet.subarray(12, 14)]).toEqual([0x01, 0x02]);
  });

  it('plays reordered RTP packets in sequence order, across the sequence wrap', () => {
    const sender = edgeOf({ codec: 'l16', framing: 'rtp', initialSequence: 65534 });
    const messages = [1, 2, 3, 4, 5, 6].map((k) => sender.encode(frameOf(constantFrame(k * 1000)), k === 1));
    const receiver = edgeOf({ codec: 'l16', framing: 'rtp' });
    for (const i of [0, 2, 1, 3, 5, 4]) expect(receiver.accept(messages[i]!)).toBeNull();
    expect(drain(receiver).map(constantOf)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
    expect(receiver.stats).toEqual({ received: 6, refused: 0, lost: 0, late: 0, reordered: 2 });
  });

  it('starts RTP playout once 3 frames (60 ms) are held, and a packet after its slot played is late', () => {
    expect(WS_JITTER_TARGET_FRAMES).toBe(3);
    const sender = edgeOf({ codec: 'l16', framing: 'rtp' });
    const messages = [1, 2, 3, 4, 5, 6].map((k) => sender.encode(frameOf(constantFrame(k * 1000)), k === 1));
    const receiver = edgeOf({ codec: 'l16', framing: 'rtp' });
    expect(receiver.next(0)).toBeNull(); // nothing received yet
    receiver.accept(messages[0]!);
    expect(receiver.next(20)).toBeNull();
    receiver.accept(messages[1]!);
    expect(receiver.next(40)).toBeNull(); // 2 held: not yet
    receiver.accept(messages[2]!);
    expect(constantOf(receiver.next(60)!)).toBe(1000); // the first, 60 ms after it came
    receiver.accept(messages[4]!); // 4 is still on its way
    expect(constantOf(receiver.next(80)!)).toBe(2000);
    expect(constantOf(receiver.next(100)!)).toBe(3000);
    expect(constantOf(receiver.next(120)!)).toBe(0); // 4 given up for lost
    expect(receiver.accept(messages[3]!)).toBeNull(); // accepted, but too late to play
    receiver.accept(messages[5]!);
    expect(drain(receiver).map(constantOf)).toEqual([5000, 6000]);
    expect(receiver.stats).toEqual({ received: 6, refused: 0, lost: 1, late: 1, reordered: 0 });
  });

  it.each(['pcmu', 'pcma'] as const)('hands %s over at 8 kHz, as it travels, in both framings', (codec) => {
    for (const framing of WS_FRAMINGS) {
      const sender = edgeOf({ codec, framing });
      const receiver = edgeOf({ codec, framing });
      expect(receiver.receiveRate).toBe(8000);
      const frames: AudioFrame[] = [];
      for (let i = 0; i < 10; i += 1) {
        receiver.accept(sender.encode(frameOf(sineFrame(i)), i === 0));
        frames.push(...(framing === 'rtp' ? drain(receiver, 1, i) : arrived(receiver, i * 20)));
      }
      frames.push(...drain(receiver, 3, 10));
      expect(frames).toHaveLength(10);
      // The codes decoded as they are, not resampled: the same 8 kHz samples the G.711 decoder gives.
      const last = frames.at(-1)!.samples;
      expect(last).toHaveLength(160);
      expect(zeroCrossings(last)).toBeGreaterThanOrEqual(16);
      expect(zeroCrossings(last)).toBeLessThanOrEqual(19);
      expect(Math.abs(rms(last) - rms(sineFrame(9))) / rms(sineFrame(9))).toBeLessThan(0.25);
    }
    // L16 and Opus at 16 kHz.
    expect(edgeOf({ codec: 'l16', framing: 'payload' }).receiveRate).toBe(16000);
    expect(edgeOf({ codec: 'opus', framing: 'rtp' }).receiveRate).toBe(16000);
  });

  it.each(['l16', 'pcmu', 'pcma'] as const)('plays a lost %s RTP packet as silence', (codec) => {
    const sender = edgeOf({ codec, framing: 'rtp' });
    const messages = [0, 1, 2, 3, 4, 5].map((i) => sender.encode(frameOf(sineFrame(i)), i === 0));
    const receiver = edgeOf({ codec, framing: 'rtp' });
    for (const i of [0, 1, 3, 4, 5]) expect(receiver.accept(messages[i]!)).toBeNull();
    const frames = drain(receiver);
    expect(frames).toHaveLength(6);
    expect(frames[2]!.samples.every((sample) => sample === 0)).toBe(true);
    for (const i of [1, 3, 4, 5]) expect(rms(frames[i]!.samples)).toBeGreaterThan(4000);
    expect(receiver.stats.lost).toBe(1);
    expect(receiver.stats.received).toBe(5);
  });

  it('conceals a lost Opus RTP packet with the decoder, and an undecodable one too', () => {
    const sender = edgeOf({
      codec: 'opus',
      framing: 'rtp',
      ssrc: 7,
      initialSequence: 0,
      initialTimestamp: 0,
    });
    const messages = Array.from({ length: 14 }, (_, i) => sender.encode(frameOf(sineFrame(i)), i === 0));
    // Packet 10 is not Opus (code 3 with zero frames, RFC 6716 section 3.2.5): the same header.
    const garbage = messages[10]!.slice(0, RTP_HEADER_BYTES + 2);
    garbage.set([0x03, 0x00], RTP_HEADER_BYTES);
    const receiver = edgeOf({ codec: 'opus', framing: 'rtp' });
    // One packet per tick, as they would arrive; the buffer plays from its third.
    const frames: AudioFrame[] = [];
    for (let i = 0; i < messages.length; i += 1) {
      if (i !== 7) expect(receiver.accept(i === 10 ? garbage : messages[i]!)).toBeNull(); // 7 is lost
      frames.push(...drain(receiver, 1, i));
    }
    frames.push(...drain(receiver, 10, messages.length));
    expect(frames).toHaveLength(14);
    // Concealment continues the tone (and fades it) rather than going silent.
    expect(rms(frames[7]!.samples)).toBeGreaterThan(500);
    expect(rms(frames[10]!.samples)).toBeGreaterThan(500);
    expect(receiver.stats.lost).toBe(2);
    expect(receiver.stats.received).toBe(13);
  });

  it('hands a burst of bare payloads over as it comes: every frame at once, none held back', () => {
    const sender = edgeOf({ codec: 'l16', framing: 'payload' });
    const receiver = edgeOf({ codec: 'l16', framing: 'payload' });
    const send = (k: number, at: number): AudioFrame[] => {
      expect(receiver.accept(sender.encode(frameOf(constantFrame(k)), k === 1), at)).toBeNull();
      return arrived(receiver, at);
    };
    // Steady: frame k due and arriving at 20 k, timed as having started 20 ms before it.
    const got = [0, 1, 2].flatMap((k) => send(k, k * 20));
    expect(got.map((f) => f.at)).toEqual([-20, 0, 20]);
    // The client stalls: frames 3-7 (due at 60-140, so started at 40-120) come at once at 140.
    // Each is handed over as it comes, nothing waits for a beat; they go back into the gap (the
    // timeline ends at 40, within the back-fill of the burst's start at 120), at the times they
    // started.
    const burst = [3, 4, 5, 6, 7].flatMap((k) => send(k, 140));
    expect(burst.map(constantOf)).toEqual([3, 4, 5, 6, 7]);
    expect(burst.map((f) => f.at)).toEqual([40, 60, 80, 100, 120]);
    expect(receiver.next(160)).toBeNull(); // nothing left for the beat
    expect(receiver.audioUntil).toBe(140);
    expect(send(8, 160).map((f) => f.at)).toEqual([140]);
    // A pause (nothing sent for 200 ms): the next frame starts again 20 ms before its arrival.
    expect(send(9, 380).map((f) => f.at)).toEqual([360]);
    // A gap longer than the back-fill reads as a pause (a stall cannot be told from one): the
    // frames after it (timeline end 380, their start 540) start again 20 ms before their arrival.
    const late = [10, 11, 12].flatMap((k) => send(k, 560));
    expect(late.map((f) => f.at)).toEqual([540, 560, 580]);
    // Sixty at once after a pause: all handed over (there is no queue to overflow), 20 ms apart
    // from 20 ms before their arrival, but none more than 1 s ahead of that start.
    const flood = Array.from({ length: 60 }, (_, k) => send(k + 1, 2_000)).flat();
    expect(flood.map(constantOf)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(flood.slice(0, 51).map((f) => f.at)).toEqual(Array.from({ length: 51 }, (_, i) => 1_980 + i * 20));
    expect(flood.slice(50).every((f) => f.at === 2_980)).toBe(true);
    expect(receiver.stats).toEqual({ received: 73, refused: 0, lost: 0, late: 0, reordered: 0 });
  });

  it('brings a timeline that a burst pushed ahead of the clock back to it in the quiet after', () => {
    const sender = edgeOf({ codec: 'pcmu', framing: 'payload' });
    const receiver = edgeOf({ codec: 'pcmu', framing: 'payload' });
    const send = (frame: Int16Array, at: number): number[] => {
      expect(receiver.accept(sender.encode(frameOf(frame), false), at)).toBeNull();
      return arrived(receiver, at).map((f) => f.at);
    };
    // The clock a frame is measured against is its start: 20 ms before its arrival.
    expect(send(sineFrame(0), 0)).toEqual([-20]);
    // A stall past the back-fill: the timeline restarts at the burst's start (280, arriving at
    // 300), so the 8 frames of the burst run 140 ms ahead of the clock, 20 ms apart.
    const burst = Array.from({ length: 8 }, (_, i) => send(sineFrame(i + 1), 300)).flat();
    expect(burst).toEqual(Array.from({ length: 8 }, (_, i) => 280 + i * 20));
    // The caller goes on talking, steadily: speech keeps its length, still 140 ms ahead of each
    // frame's start (20 ms before its arrival at 320 + 20 i).
    const talk = Array.from({ length: 10 }, (_, i) => send(sineFrame(i + 9), 320 + i * 20)).flat();
    expect(talk.map((at, i) => at - (300 + i * 20))).toEqual(Array(10).fill(140));
    // Then quiet (after one frame that still holds the sender's resampler tail of the tone):
    // each frame is timed catchUpMs sooner than the timeline until it is back on its start (20 ms
    // before its arrival), and then stays there.
    expect(send(constantFrame(0), 520)).toEqual([640]);
    const { catchUpMs } = WS_PAYLOAD_TIMING;
    const quiet = Array.from({ length: 60 }, (_, i) => send(constantFrame(0), 540 + i * 20)).flat();
    const ahead = quiet.map((at, i) => at - (520 + i * 20));
    expect(ahead[0]).toBe(140 - catchUpMs);
    for (let i = 1; i < ahead.length; i += 1) expect(ahead[i]).toBe(Math.max(0, ahead[i - 1]! - catchUpMs));
    expect(ahead.at(-1)).toBe(0);
  });

  it('puts a burst read after our own event loop stalled back into the gap, however long the stall', () => {
    const sender = edgeOf({ codec: 'l16', framing: 'payload' });
    const receiver = edgeOf({ codec: 'l16', framing: 'payload' });
    const send = (k: number, at: number, unreadSince?: number): number[] => {
      expect(receiver.accept(sender.encode(frameOf(constantFrame(k * 1000)), k === 1), at)).toBeNull();
      const frames: AudioFrame[] = [];
      for (let f = receiver.takeArrived(at, unreadSince); f; f = receiver.takeArrived(at, unreadSince)) {
        expectShape(receiver, f);
        frames.push(f);
      }
      return frames.map((f) => f.at);
    };
    // Steady speech: frame k arriving at 20 k, read as it came.
    expect([1, 2, 3].flatMap((k) => send(k, k * 20, k * 20 - 20))).toEqual([0, 20, 40]);
    // Our event loop read nothing from 60 to 260 (a 200 ms stall): the client's frames 4-13, sent
    // at 80-260, all come in the read at 260. They were waiting in the socket, not paused at the
    // client: they go back into the gap (timeline end 60) at the times they were captured, the
    // last ending at its arrival, where a gap this long would otherwise restart the timeline at
    // 240 and put the speech 180 ms ahead of the clock.
    const burst = [4, 5, 6, 7, 8, 9, 10, 11, 12, 13].flatMap((k) => send(k, 260, 60));
    expect(burst).toEqual(Array.from({ length: 10 }, (_, i) => 60 + i * 20));
    expect(receiver.audioUntil).toBe(260);
    // On time again.
    expect(send(14, 280, 260)).toEqual([260]);
    // The same gap with the socket read all along is a pause at the client: the timeline restarts.
    expect(send(15, 500, 480)).toEqual([480]);
  });

  it('hands an Opus packet of 60 ms over as three 20 ms frames at once, 20 ms apart', () => {
    const sender = edgeOf({ codec: 'opus', framing: 'payload' });
    const packets = Array.from({ length: 9 }, (_, i) => sender.encode(frameOf(sineFrame(i)), i === 0));
    const receiver = edgeOf({ codec: 'opus', framing: 'payload' });
    const frames: AudioFrame[] = [];
    for (let p = 0; p < 3; p += 1) {
      const packet = opusMultiFrame(packets.slice(p * 3, p * 3 + 3));
      expect(receiver.accept(packet, 1_000 + p * 60)).toBeNull();
      const got = arrived(receiver, 1_000 + p * 60);
      // The first frame 20 ms before the packet's arrival, the other two 20 ms apart after it;
      // the next packet continues where this one ended.
      expect(got.map((f) => f.at)).toEqual([980, 1_000, 1_020].map((at) => at + p * 60));
      frames.push(...got);
    }
    expect(frames).toHaveLength(9);
    // The tone, continuous across the packets (past the codec's warm-up).
    for (const frame of frames.slice(3)) {
      expect(rms(frame.samples)).toBeGreaterThan(4000);
      expect(zeroCrossings(frame.samples)).toBeGreaterThanOrEqual(16);
      expect(zeroCrossings(frame.samples)).toBeLessThanOrEqual(19);
    }
    expect(receiver.stats).toEqual({ received: 3, refused: 0, lost: 0, late: 0, reordered: 0 });
  });

  it('keeps an Opus packet shorter than 20 ms until the next one makes up a frame', () => {
    const receiver = edgeOf({ codec: 'opus', framing: 'payload' });
    // A TOC byte alone, CELT fullband 10 ms (config 30): 10 ms the decoder fills in (DTX).
    const tenMs = Uint8Array.of(30 << 3);
    expect(receiver.accept(tenMs, 0)).toBeNull();
    expect(arrived(receiver, 0)).toEqual([]);
    expect(receiver.accept(tenMs, 10)).toBeNull();
    // The frame the two made up is handed over with the second, timed 20 ms before it came: when
    // the first one's 10 ms started (-10 to 0, then 0 to 10).
    expect(arrived(receiver, 10).map((f) => f.at)).toEqual([-10]);
    expect(receiver.accept(tenMs, 20)).toBeNull();
    expect(arrived(receiver, 20)).toEqual([]);
  });

  it('refuses bad messages without throwing, counts them and queues nothing', () => {
    const payloadEdge = edgeOf({ codec: 'pcmu', framing: 'payload' });
    expect(payloadEdge.accept(new Uint8Array(100))).toBe('bad_size');
    expect(payloadEdge.accept(new Uint8Array(161))).toBe('bad_size');
    expect(payloadEdge.accept(new Uint8Array(0))).toBe('bad_size');
    expect(payloadEdge.accept(new Uint8Array(2000))).toBe('too_large');
    expect(payloadEdge.stats).toEqual({ received: 0, refused: 4, lost: 0, late: 0, reordered: 0 });
    expect(payloadEdge.next(0)).toBeNull();
    expect(payloadEdge.takeArrived(0)).toBeNull();

    const rtpEdge = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    const garbage = Uint8Array.from({ length: 172 }, (_, i) => (i * 37 + 11) & 0xff);
    garbage[0] = 0x00; // version 0
    expect(rtpEdge.accept(garbage)).toBe('bad_rtp');
    expect(rtpEdge.accept(new Uint8Array(0))).toBe('bad_rtp');
    expect(rtpEdge.accept(new Uint8Array(2000))).toBe('too_large');
    const pcmaPacket = edgeOf({ codec: 'pcma', framing: 'rtp' }).encode(frameOf(sineFrame(0)), true);
    expect(rtpEdge.accept(pcmaPacket)).toBe('wrong_payload_type');
    const shortPcmu = new Uint8Array(RTP_HEADER_BYTES + 100);
    shortPcmu[0] = 0x80; // version 2, payload type 0 in byte 1
    expect(rtpEdge.accept(shortPcmu)).toBe('bad_size');
    expect(rtpEdge.stats).toEqual({ received: 0, refused: 5, lost: 0, late: 0, reordered: 0 });
    expect(drain(rtpEdge, 5)).toEqual([]);

    const opusEdge = edgeOf({ codec: 'opus', framing: 'payload' });
    expect(opusEdge.accept(Uint8Array.of(0x03, 0x00))).toBe('bad_opus');
    expect(opusEdge.accept(new Uint8Array(0))).toBe('bad_size');
    expect(opusEdge.accept(new Uint8Array(1276))).toBe('bad_size');
    expect(opusEdge.stats.refused).toBe(3);
    expect(opusEdge.takeArrived(0)).toBeNull();
  });

  it('refuses a frame that is not 20 ms at 16 kHz, and options out of range', () => {
    const edge = edgeOf({ codec: 'pcmu', framing: 'payload' });
    expect(() => edge.encode(frameOf(new Int16Array(160)), true)).toThrow(RangeError);
    expect(() => edge.encode({ samples: new Int16Array(320), sampleRate: 8000, at: 0 }, true)).toThrow(
      RangeError,
    );
    expect(() => new WsMediaEdge({ codec: 'pcmu', framing: 'rtp', ssrc: -1 })).toThrow(RangeError);
    expect(() => new WsMediaEdge({ codec: 'pcmu', framing: 'rtp', initialSequence: 65536 })).toThrow(
      RangeError,
    );
    expect(() => new WsMediaEdge({ codec: 'pcmu', framing: 'rtp', initialTimestamp: 2 ** 32 })).toThrow(
      RangeError,
    );
    expect(() => new WsMediaEdge({ codec: 'g729' as WsCodec, framing: 'rtp' })).toThrow(RangeError);
  });
});

describe('WsMediaEdge link statistics', () => {
  /** `count` RTP messages of a sender with known counters. */
  function packets(codec: WsCodec, count: number, options: Partial<WsMediaEdgeOptions> = {}): Uint8Array[] {
    const sender = edgeOf({
      codec,
      framing: 'rtp',
      ssrc: 42,
      initialSequence: 100,
      initialTimestamp: 0,
      ...options,
    });
    return Array.from({ length: count }, (_, i) => sender.encode(frameOf(sineFrame(i)), i === 0));
  }

  it('counts an in-order RTP stream that came on time as no loss and no jitter', () => {
    const receiver = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    // One packet per tick, as the carrier's beat plays them out.
    packets('pcmu', 50).forEach((message, i) => {
      expect(receiver.accept(message, 1_000 + i * 20)).toBeNull();
      drain(receiver, 1, i);
    });
    for (let i = 0; i < 3; i += 1) receiver.encode(frameOf(sineFrame(i)), i === 0);
    // What the jitter buffer still held behind the last one to play comes out after it.
    expect(drain(receiver, 10, 50)).toHaveLength(WS_JITTER_TARGET_FRAMES - 1);
    expect(receiver.linkStats()).toEqual({
      framesIn: 50,
      framesLost: 0,
      framesLate: 0,
      framesReordered: 0,
      framesRefused: 0,
      framesOut: 3,
      packetLoss: 0,
      jitterMs: 0,
    });
  });

  it('counts frames the jitter buffer skipped to cut its delay (a burst) as lost here', () => {
    const receiver = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    packets('pcmu', 30).forEach((message) => receiver.accept(message, 0));
    // 30 held, 12 at most: it skips 27 to be 3 frames (WS_JITTER_TARGET_FRAMES) from the newest,
    // and plays those.
    expect(WS_JITTER_MAX_FRAMES).toBe(12);
    expect(drain(receiver, 40)).toHaveLength(3);
    expect(receiver.linkStats()).toMatchObject({ framesIn: 30, framesLost: 27, packetLoss: 0 });

    // At the limit: a burst of WS_JITTER_MAX_FRAMES is played whole; one more and it skips to the target.
    const whole = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    packets('pcmu', WS_JITTER_MAX_FRAMES).forEach((message) => whole.accept(message, 0));
    expect(drain(whole, 40)).toHaveLength(WS_JITTER_MAX_FRAMES);
    expect(whole.linkStats()).toMatchObject({ framesIn: WS_JITTER_MAX_FRAMES, framesLost: 0 });
    const over = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    packets('pcmu', WS_JITTER_MAX_FRAMES + 1).forEach((message) => over.accept(message, 0));
    expect(drain(over, 40)).toHaveLength(WS_JITTER_TARGET_FRAMES);
    expect(over.linkStats()).toMatchObject({
      framesIn: WS_JITTER_MAX_FRAMES + 1,
      framesLost: WS_JITTER_MAX_FRAMES + 1 - WS_JITTER_TARGET_FRAMES,
    });
  });

  it('counts sequence gaps as loss over what the sequence numbers expected, across the wrap', () => {
    const receiver = edgeOf({ codec: 'l16', framing: 'rtp' });
    const messages = packets('l16', 40, { initialSequence: 65530 });
    const dropped = new Set([3, 4, 17, 39 - 1]);
    messages.forEach((message, i) => {
      if (!dropped.has(i)) receiver.accept(message, i * 20);
    });
    const stats = receiver.linkStats();
    // 40 sent (65530 through 33, wrapping), 4 never came.
    expect(stats.framesIn).toBe(36);
    expect(stats.framesLost).toBe(4);
    expect(stats.packetLoss).toBeCloseTo(4 / 40, 10);
    expect(stats.jitterMs).toBe(0);
  });

  it('counts reordered packets once, and a late one as received (not lost)', () => {
    const receiver = edgeOf({ codec: 'pcma', framing: 'rtp' });
    const messages = packets('pcma', 10);
    // 2 comes before 1: reordered, in time to play.
    for (const i of [0, 2, 1, 3, 4, 5]) receiver.accept(messages[i]!, i * 20);
    drain(receiver, 6);
    for (const i of [6, 7, 8, 9]) receiver.accept(messages[i]!, i * 20);
    const stats = receiver.linkStats();
    expect(stats.framesIn).toBe(10);
    expect(stats.framesReordered).toBe(1);
    expect(stats.packetLoss).toBe(0);
    expect(stats.framesLost).toBe(0);
  });

  it('reports a packet after its slot played as late, and its gap is not network loss', () => {
    const receiver = edgeOf({ codec: 'l16', framing: 'rtp' });
    const messages = packets('l16', 5);
    receiver.accept(messages[0]!, 0);
    receiver.accept(messages[1]!, 20);
    receiver.accept(messages[3]!, 60);
    drain(receiver, 3); // plays 0, 1, and 2 as missing
    receiver.accept(messages[2]!, 80);
    receiver.accept(messages[4]!, 80);
    const stats = receiver.linkStats();
    expect(stats.framesLate).toBe(1);
    expect(stats.framesLost).toBe(0);
    expect(stats.packetLoss).toBe(0);
  });

  it('measures the interarrival jitter in ms (RFC 3550 A.8) against the arrival times given', () => {
    const receiver = edgeOf({ codec: 'opus', framing: 'rtp' });
    const messages = packets('opus', 200);
    // Every other packet 10 ms late: each transit difference is 10 ms, so J converges to 10 ms.
    messages.forEach((message, i) => receiver.accept(message, i * 20 + (i % 2) * 10));
    expect(receiver.linkStats().jitterMs).toBeCloseTo(10, 3);
    // Recomputed here by the formula, one packet at a time.
    let jitter = 0;
    for (let i = 1; i < 200; i += 1) jitter += (10 - jitter) / 16;
    expect(receiver.linkStats().jitterMs).toBeCloseTo(jitter, 9);

    const untimed = edgeOf({ codec: 'opus', framing: 'rtp' });
    for (const message of messages.slice(0, 5)) untimed.accept(message);
    expect(untimed.linkStats().jitterMs).toBeNull();
    expect(untimed.linkStats().packetLoss).toBe(0);
  });

  it('starts a new count on a new SSRC and keeps what the first stream expected', () => {
    const receiver = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    const first = packets('pcmu', 10, { ssrc: 1, initialSequence: 500 });
    const second = packets('pcmu', 10, { ssrc: 2, initialSequence: 9 });
    first.forEach((message, i) => {
      if (i !== 5) receiver.accept(message, i * 20);
    });
    second.forEach((message, i) => {
      if (i !== 2 && i !== 3) receiver.accept(message, 200 + i * 20);
    });
    const stats = receiver.linkStats();
    expect(stats.framesIn).toBe(17);
    expect(stats.framesLost).toBe(3);
    expect(stats.packetLoss).toBeCloseTo(3 / 20, 10);
  });

  it('takes a sequence jump once the next packet confirms it, and ignores a stray one', () => {
    const receiver = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    const before = packets('pcmu', 5, { initialSequence: 0 });
    const stray = packets('pcmu', 1, { initialSequence: 20_000 });
    const after = packets('pcmu', 5, { initialSequence: 40_000 });
    before.forEach((message, i) => receiver.accept(message, i * 20));
    receiver.accept(stray[0]!, 100);
    after.forEach((message, i) => receiver.accept(message, 120 + i * 20));
    const stats = receiver.linkStats();
    // The stray and the first of the jump are not counted as sent (A.1); nothing was lost.
    expect(stats.packetLoss).toBe(0);
    expect(stats.framesLost).toBe(0);
    expect(stats.framesIn).toBe(11);
  });

  it('has no loss or jitter figure for bare payloads', () => {
    const sender = edgeOf({ codec: 'l16', framing: 'payload' });
    const receiver = edgeOf({ codec: 'l16', framing: 'payload' });
    for (let k = 1; k <= 60; k += 1) {
      receiver.accept(sender.encode(frameOf(constantFrame(k)), k === 1), k * 20);
      expect(arrived(receiver, k * 20)).toHaveLength(1);
    }
    receiver.accept(new Uint8Array(7), 1_300);
    expect(receiver.linkStats()).toEqual({
      framesIn: 60,
      framesLost: 0,
      framesLate: 0,
      framesReordered: 0,
      framesRefused: 1,
      framesOut: 0,
      packetLoss: null,
      jitterMs: null,
    });
  });

  it('refused RTP messages count as refused, not as received or sent', () => {
    const receiver = edgeOf({ codec: 'pcmu', framing: 'rtp' });
    const pcma = packets('pcma', 2);
    for (const message of pcma) expect(receiver.accept(message, 0)).toBe('wrong_payload_type');
    expect(receiver.linkStats()).toMatchObject({
      framesIn: 0,
      framesRefused: 2,
      packetLoss: null,
      jitterMs: null,
    });
  });
});
