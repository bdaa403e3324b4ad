// The codec and framing edge of a WebSocket media call: turns Parley's 16 kHz 20 ms frames into
// the binary messages the client expects (G.711, L16 or Opus; bare payloads or RTP packets) and
// the client's messages back into 20 ms frames, and counts the link (loss and jitter as RFC 3550
// has them). What the client sends comes out at the rate it travels when the session takes it
// (G.711 at 8 kHz, as a telephone carrier hands it over, so the recognizer knows it for telephone
// audio), else at 16 kHz (L16, and Opus decoded at 48 kHz). Bare payloads come out as they arrive
// (`takeArrived`); RTP packets through a jitter buffer, one frame per tick (`next`). Pure: no I/O,
// no timers; the caller owns the socket and the 20 ms clock, and says when each message came.
import {
  FRAME_MS,
  JitterBuffer,
  Resampler,
  SESSION_RATE,
  alawDecodeInto,
  alawEncodeInto,
  buildRtp,
  createOpusCodec,
  l16DecodeInto,
  l16EncodeInto,
  mulawDecodeInto,
  mulawEncodeInto,
  parseRtp,
  samplesPerFrame,
  seqAdd,
  seqDiff,
  tsAdd,
  tsDiff,
  type AudioFrame,
  type LinkStats,
  type OpusCodec,
  type RtpPacket,
  type SampleRate,
} from '../../media/index.ts';

export type WsCodec = 'pcmu' | 'pcma' | 'l16' | 'opus';
export type WsFraming = 'rtp' | 'payload';

export const WS_CODECS: readonly WsCodec[] = Object.freeze(['pcmu', 'pcma', 'l16', 'opus']);
export const WS_FRAMINGS: readonly WsFraming[] = Object.freeze(['rtp', 'payload']);

/** Per codec: rate, clock rate, payload type, payload bytes (null for opus). */
export const WS_CODEC_INFO: Record<
  WsCodec,
  { sampleRate: 8000 | 16000 | 48000; clockRate: number; payloadType: number; payloadBytes: number | null }
> = Object.freeze({
  pcmu: { sampleRate: 8000, clockRate: 8000, payloadType: 0, payloadBytes: 160 },
  pcma: { sampleRate: 8000, clockRate: 8000, payloadType: 8, payloadBytes: 160 },
  l16: { sampleRate: 16000, clockRate: 16000, payloadType: 96, payloadBytes: 640 },
  opus: { sampleRate: 48000, clockRate: 48000, payloadType: 111, payloadBytes: null },
});

/** Why an incoming binary message was refused (counted and dropped by the caller; never throws). */
export type WsInboundError = 'bad_size' | 'bad_rtp' | 'wrong_payload_type' | 'bad_opus' | 'too_large';

export interface WsMediaEdgeOptions {
  codec: WsCodec;
  framing: WsFraming;
  /** SSRC of what we send; default random 32-bit. */
  ssrc?: number;
  /** First sequence/timestamp we send; default random. */
  initialSequence?: number;
  initialTimestamp?: number;
}

/** An Ethernet MTU: anything bigger is not one 20 ms frame of any of these codecs. */
const MAX_MESSAGE_BYTES = 1500;
/** RFC 6716 section 3.4 R2: no Opus packet is longer. */
const MAX_OPUS_BYTES = 1275;
/** An RTP header without CSRCs or extension, as we send it. */
const RTP_HEADER_BYTES = 12;
/** RFC 6716 section 3.2.5: one Opus packet carries at most 120 ms, six 20 ms frames. */
const OPUS_MAX_PACKET_FRAMES = 6;
/**
 * Frames the jitter buffer holds before it starts to play (and again after it ran dry): 3, so a
 * packet plays 40-60 ms after it came, which absorbs that much jitter on the way and on this
 * node's event loop (with 2, a loaded node skipped frames of clean streams), and lets a packet
 * overtaken by the next one still play in its slot.
 */
export const WS_JITTER_TARGET_FRAMES = 3;
/**
 * Frames held beyond which the jitter buffer skips the oldest back to the target (counted as
 * lost): after a burst the delay it left stands at most 240 ms, where playing every frame would
 * keep it for the rest of the talkspurt.
 */
export const WS_JITTER_MAX_FRAMES = 12;
/**
 * How bare payloads are timed (they carry no timestamps). A frame that comes was captured over the
 * 20 ms before the client sent it, so it is timed as starting then (its arrival minus 20 ms), but
 * never at or before a silence the leg filled in meanwhile (the session keeps its frames in time
 * order). Each frame after it is timed 20 ms after the one before, so a burst keeps its spacing.
 * A frame that comes within `backfillMs` of where the last one ended continues that timeline (a
 * burst after a stall goes back into the gap it left); after a longer gap the timeline restarts.
 * No frame is timed more than `aheadMs` ahead (a whole line sent at once). A frame that comes
 * `burstMs` or more after the one before (a steady stream, not a burst) while the timeline runs
 * ahead is timed `catchUpMs` sooner than the timeline says if it is quiet (speech keeps its
 * length), so a burst that went ahead does not leave the call timed ahead (endpointing would wait
 * that much longer) for the rest of the call.
 */
/** Peak below which a frame is quiet (about -40 dBFS): catching up on it shortens no speech. */
const QUIET_PEAK = 300;

function isQuiet(samples: Int16Array): boolean {
  for (let i = 0; i < samples.length; i += 1) {
    const v = samples[i]!;
    if (v > QUIET_PEAK || v < -QUIET_PEAK) return false;
  }
  return true;
}

export const WS_PAYLOAD_TIMING = Object.freeze({
  backfillMs: 100,
  aheadMs: 1_000,
  burstMs: 10,
  catchUpMs: 4,
});
/**
 * Decoded audio not yet handed over is at most one packet (an Opus packet carries up to 120 ms)
 * plus what is left of the one before (under 20 ms): the queue never overflows.
 */
const QUEUE_FRAMES = OPUS_MAX_PACKET_FRAMES + 1;
/** 20 ms at 16 kHz: what `encode` takes. */
const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);

const randomUint = (bits: 16 | 32): number => Math.floor(Math.random() * 2 ** bits);

function checkOption(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new RangeError(`WsMediaEdge ${name} must be an integer 0-${max}, got ${value}`);
  }
  return value;
}

/**
 * One codec's conversion between 16 kHz frames and payloads; it owns its resampler state and
 * scratch. It decodes to `receiveRate`.
 */
interface PayloadCodec {
  /** The rate of what `decode` and `conceal` write. */
  readonly receiveRate: SampleRate;
  /** Encodes 320 samples at 16 kHz into `out` when given (fixed-size payloads), else into a new array. */
  encode(samples: Int16Array, out: Uint8Array | null): Uint8Array;
  /** Decodes one payload into `out` (room for `maxDecoded`); returns the samples, 0 when undecodable. */
  decode(payload: Uint8Array, out: Int16Array): number;
  /** Writes 20 ms in place of a lost payload into `out`; returns the samples. */
  conceal(out: Int16Array): number;
  /** The most samples one payload can decode to. */
  readonly maxDecoded: number;
  close(): void;
}

function concealWithSilence(out: Int16Array, rate: SampleRate): number {
  const samples = samplesPerFrame(rate);
  out.fill(0, 0, samples);
  return samples;
}

function g711Codec(
  encodeInto: (pcm: Int16Array, out: Uint8Array) => number,
  decodeInto: (codes: Uint8Array, out: Int16Array) => number,
): PayloadCodec {
  // What we send goes down to 8 kHz (the resampler keeps its filter history from frame to frame);
  // what we receive stays at 8 kHz, telephone audio as it came.
  const down = new Resampler(SESSION_RATE, 8000);
  const send8k = new Int16Array(samplesPerFrame(8000));
  return {
    receiveRate: 8000,
    maxDecoded: samplesPerFrame(8000),
    encode(samples, out) {
      down.process(samples, send8k);
      const payload = out ?? new Uint8Array(send8k.length);
      encodeInto(send8k, payload);
      return payload;
    },
    decode: (payload, out) => decodeInto(payload, out),
    conceal: (out) => concealWithSilence(out, 8000),
    close() {},
  };
}

const l16Codec: PayloadCodec = {
  receiveRate: SESSION_RATE,
  maxDecoded: FRAME_SAMPLES,
  encode(samples, out) {
    const payload = out ?? new Uint8Array(samples.length * 2);
    l16EncodeInto(samples, payload);
    return payload;
  },
  decode: (payload, out) => l16DecodeInto(payload, out),
  conceal: (out) => concealWithSilence(out, SESSION_RATE),
  close() {},
};

function opusCodec(): PayloadCodec {
  const up = new Resampler(SESSION_RATE, 48000);
  const down = new Resampler(48000, SESSION_RATE);
  const send48k = new Int16Array(samplesPerFrame(48000));
  let codec: OpusCodec | null = null;
  let closed = false;
  // Created on first use: the library loads then, and an edge that never codes costs nothing.
  const opus = (): OpusCodec => {
    if (closed) throw new Error('the WsMediaEdge is closed');
    return (codec ??= createOpusCodec({ sampleRate: 48000 }));
  };
  // Decoded packets may run to 120 ms; the common 20 ms one gets a ready-made view.
  const receive48k = new Int16Array(samplesPerFrame(48000) * OPUS_MAX_PACKET_FRAMES);
  const receive48kFrame = receive48k.subarray(0, samplesPerFrame(48000));
  const resampleDown = (samples: number, out16: Int16Array): number =>
    down.process(
      samples === receive48kFrame.length ? receive48kFrame : receive48k.subarray(0, samples),
      out16,
    );
  return {
    receiveRate: SESSION_RATE,
    maxDecoded: down.maxOutput(receive48k.length),
    encode(samples) {
      up.process(samples, send48k);
      return opus().encode(send48k); // already a new array
    },
    decode(payload, out16) {
      const samples = opus().decode(payload, receive48k);
      return samples === 0 ? 0 : resampleDown(samples, out16);
    },
    conceal(out16) {
      // Before any packet there is nothing to continue; and should libopus refuse the loss packet,
      // silence is still a frame.
      let samples = 0;
      try {
        if (codec !== null) samples = opus().conceal(receive48k);
      } catch {
        samples = 0;
      }
      return samples === 0 ? concealWithSilence(out16, SESSION_RATE) : resampleDown(samples, out16);
    },
    close() {
      closed = true;
      codec?.close();
    },
  };
}

function payloadCodecFor(codec: WsCodec): PayloadCodec {
  switch (codec) {
    case 'pcmu':
      return g711Codec(mulawEncodeInto, mulawDecodeInto);
    case 'pcma':
      return g711Codec(alawEncodeInto, alawDecodeInto);
    case 'l16':
      return l16Codec;
    case 'opus':
      return opusCodec();
  }
}

/** RFC 3550 appendix A.1: a packet this far ahead of the highest sequence number is a jump... */
const MAX_DROPOUT = 3000;
/** ...and one this far behind it too. */
const MAX_MISORDER = 100;

/**
 * RFC 3550 reception statistics of the far end's RTP stream (section 6.4.1, appendices A.1, A.3
 * and A.8): the packets its sequence numbers say were sent, those that came, and the interarrival
 * jitter. A new SSRC, or a sequence jump confirmed by the next packet, starts a new count; what
 * the earlier ones expected and received is kept in the totals.
 */
class RtpReception {
  private ssrc = -1;
  /** Extended (unwrapped) sequence numbers of the first and the highest packet of this stream. */
  private base = 0;
  private highest = 0;
  private received = 0;
  /** The sequence number that would confirm a jump (the one after a far-off packet), if any. */
  private probation: number | null = null;
  private earlierExpected = 0;
  private earlierReceived = 0;
  /** The last packet's arrival (in clock units) and timestamp, for the transit difference. */
  private lastArrival: number | null = null;
  private lastTimestamp = 0;
  /** The jitter estimate in clock units, and whether any difference fed it. */
  private jitter = 0;
  private jitterSamples = 0;

  constructor(private readonly clockRate: number) {}

  /**
   * Counts one valid packet of the stream that came at `arrivedAtMs` (on any clock in ms); without
   * an arrival time it feeds no jitter.
   */
  add(packet: RtpPacket, arrivedAtMs: number | undefined): void {
    if (packet.ssrc !== this.ssrc) this.restart(packet);
    else {
      const delta = seqDiff(packet.sequence, this.highest & 0xffff);
      if (delta > MAX_DROPOUT || delta < -MAX_MISORDER) {
        if (packet.sequence !== this.probation) {
          this.probation = seqAdd(packet.sequence, 1); // a stray, unless the next one follows it
          return;
        }
        this.restart(packet);
      } else {
        this.probation = null;
        const extended = this.highest + delta;
        if (delta > 0) this.highest = extended;
        else if (extended < this.base) this.base = extended; // overtaken on the way at the start
        this.received += 1;
      }
    }
    if (arrivedAtMs === undefined) {
      this.lastArrival = null;
      return;
    }
    // A.8: J += (|D| - J) / 16, D the difference of two packets' transit times, in clock units.
    const arrival = (arrivedAtMs * this.clockRate) / 1000;
    if (this.lastArrival !== null) {
      const d = arrival - this.lastArrival - tsDiff(packet.timestamp, this.lastTimestamp);
      this.jitter += (Math.abs(d) - this.jitter) / 16;
      this.jitterSamples += 1;
    }
    this.lastArrival = arrival;
    this.lastTimestamp = packet.timestamp;
  }

  /** Packets the sequence numbers say were sent, and of those the ones that never came (A.3). */
  get expected(): number {
    return this.earlierExpected + (this.ssrc < 0 ? 0 : this.highest - this.base + 1);
  }

  get lost(): number {
    // Duplicates count as received (A.3), so this could go below 0.
    return Math.max(0, this.expected - this.earlierReceived - this.received);
  }

  get jitterMs(): number | null {
    return this.jitterSamples === 0 ? null : (this.jitter * 1000) / this.clockRate;
  }

  private restart(packet: RtpPacket): void {
    if (this.ssrc >= 0) {
      this.earlierExpected += this.highest - this.base + 1;
      this.earlierReceived += this.received;
    }
    this.ssrc = packet.ssrc;
    this.base = packet.sequence;
    this.highest = packet.sequence;
    this.received = 1;
    this.probation = null;
    this.lastArrival = null; // transit times of different streams do not compare
  }
}

/** A FIFO of samples in a fixed ring, so queueing and playing out allocate nothing. */
class SampleQueue {
  private readonly ring: Int16Array;
  private start = 0;
  length = 0;

  constructor(capacity: number) {
    this.ring = new Int16Array(capacity);
  }

  get capacity(): number {
    return this.ring.length;
  }

  /** Appends the first `count` of `samples`; the caller keeps within the capacity. */
  push(samples: Int16Array, count: number): void {
    const { ring } = this;
    const end = (this.start + this.length) % ring.length;
    const first = Math.min(count, ring.length - end);
    ring.set(samples.subarray(0, first), end);
    if (first < count) ring.set(samples.subarray(first, count), 0);
    this.length += count;
  }

  /** Fills `out` from the front. */
  shiftInto(out: Int16Array): void {
    const { ring } = this;
    const first = Math.min(out.length, ring.length - this.start);
    out.set(ring.subarray(this.start, this.start + first));
    if (first < out.length) out.set(ring.subarray(0, out.length - first), first);
    this.drop(out.length);
  }

  drop(count: number): void {
    this.start = (this.start + count) % this.ring.length;
    this.length -= count;
  }
}

export class WsMediaEdge {
  readonly codec: WsCodec;
  readonly framing: WsFraming;
  /** The rate of the frames handed over: 8 kHz for G.711, else 16 kHz. */
  readonly receiveRate: SampleRate;
  private readonly info: (typeof WS_CODEC_INFO)[WsCodec];
  private readonly payloadCodec: PayloadCodec;
  /** For the rtp framing only: orders packets and tells gaps. */
  private readonly jitter: JitterBuffer | null;
  private readonly ssrc: number;
  private sequence: number;
  private timestamp: number;
  /** Samples in one 20 ms frame handed over. */
  private readonly frameSamples: number;
  /** Decoded audio not yet handed over: the frames of one payload, or the rest of one. */
  private readonly queue: SampleQueue;
  private readonly decoded: Int16Array;
  /** For the rtp framing with fixed-size codecs: the payload before it goes into the packet. */
  private readonly sendPayload: Uint8Array | null;
  /** For the rtp framing only: the far end's stream as RFC 3550 counts it. */
  private readonly reception: RtpReception | null;
  private received = 0;
  private refused = 0;
  private sent = 0;
  /** Frames lost here rather than in the jitter buffer: undecodable Opus in an RTP packet. */
  private lostHere = 0;
  /** Payload framing: where the audio handed over so far ends on the timeline (null: none yet). */
  private timelineEnd: number | null = null;
  /** Payload framing: when the last message with audio came. */
  private lastPayloadAt: number | null = null;
  /** Payload framing: the time of the last silence the leg filled in (see `filledSilence`). */
  private lastFilledAt = Number.NEGATIVE_INFINITY;

  constructor(options: WsMediaEdgeOptions) {
    const { codec, framing } = options;
    if (!WS_CODECS.includes(codec)) throw new RangeError(`unknown WebSocket codec: ${String(codec)}`);
    if (!WS_FRAMINGS.includes(framing)) throw new RangeError(`unknown WebSocket framing: ${String(framing)}`);
    this.codec = codec;
    this.framing = framing;
    this.info = WS_CODEC_INFO[codec];
    this.ssrc = checkOption('ssrc', options.ssrc ?? randomUint(32), 0xffffffff);
    this.sequence = checkOption('initialSequence', options.initialSequence ?? randomUint(16), 0xffff);
    this.timestamp = checkOption('initialTimestamp', options.initialTimestamp ?? randomUint(32), 0xffffffff);
    this.payloadCodec = payloadCodecFor(codec);
    this.receiveRate = this.payloadCodec.receiveRate;
    this.frameSamples = samplesPerFrame(this.receiveRate);
    this.jitter =
      framing === 'rtp'
        ? new JitterBuffer({ targetFrames: WS_JITTER_TARGET_FRAMES, maxFrames: WS_JITTER_MAX_FRAMES })
        : null;
    this.reception = framing === 'rtp' ? new RtpReception(this.info.clockRate) : null;
    this.queue = new SampleQueue(QUEUE_FRAMES * this.frameSamples);
    this.decoded = new Int16Array(this.payloadCodec.maxDecoded);
    const { payloadBytes } = this.info;
    this.sendPayload = framing === 'rtp' && payloadBytes !== null ? new Uint8Array(payloadBytes) : null;
  }

  /**
   * Counters: messages accepted (`received`) and refused (any error); frames `lost` (RTP gaps and
   * undecodable Opus); `late` and `reordered` packets (from the jitter buffer stats).
   */
  get stats(): { received: number; refused: number; lost: number; late: number; reordered: number } {
    const jitter = this.jitter?.stats;
    return {
      received: this.received,
      refused: this.refused,
      lost: this.lostHere + (jitter?.lost ?? 0),
      late: jitter?.late ?? 0,
      reordered: jitter?.reordered ?? 0,
    };
  }

  /**
   * The link's counts for the call's quality (LinkStats). With the rtp framing, loss and jitter
   * are the client's stream as RFC 3550 counts them (by sequence number and timestamp, against the
   * arrival times given to `accept`); bare payloads carry neither, so both are null.
   * `framesLost` adds what was dropped here (undecodable, or skipped by the jitter buffer to cut
   * its delay) to the sequence gaps.
   */
  linkStats(): LinkStats {
    const jitter = this.jitter?.stats;
    const reception = this.reception;
    const expected = reception?.expected ?? 0;
    return {
      framesIn: this.received,
      framesLost: (reception?.lost ?? 0) + this.lostHere + (jitter?.dropped ?? 0),
      framesLate: jitter?.late ?? 0,
      framesReordered: jitter?.reordered ?? 0,
      framesRefused: this.refused,
      framesOut: this.sent,
      packetLoss: reception && expected > 0 ? reception.lost / expected : null,
      jitterMs: reception?.jitterMs ?? null,
    };
  }

  /**
   * Encodes one 20 ms frame at 16 kHz for the client; `talkspurtStart` sets the RTP marker. Returns
   * a new Uint8Array per call (it is handed to the socket).
   */
  encode(frame: AudioFrame, talkspurtStart: boolean): Uint8Array {
    if (frame.sampleRate !== SESSION_RATE || frame.samples.length !== FRAME_SAMPLES) {
      throw new RangeError(
        `WsMediaEdge encodes 20 ms at ${SESSION_RATE} Hz (${FRAME_SAMPLES} samples), got ${frame.samples.length} at ${frame.sampleRate} Hz`,
      );
    }
    // Bare payloads are handed over as they are, so they must be new; in RTP the packet is new.
    const payload = this.payloadCodec.encode(frame.samples, this.sendPayload);
    this.sent += 1;
    if (this.framing === 'payload') return payload;
    const packet = buildRtp({
      payloadType: this.info.payloadType,
      marker: talkspurtStart,
      sequence: this.sequence,
      timestamp: this.timestamp,
      ssrc: this.ssrc,
      payload,
    });
    this.sequence = seqAdd(this.sequence, 1);
    this.timestamp = tsAdd(this.timestamp, samplesPerFrame(this.info.sampleRate));
    return packet;
  }

  /** The largest message `encodeInto` writes: an RTP header (with the rtp framing) and a payload. */
  get maxMessageBytes(): number {
    return (this.framing === 'rtp' ? RTP_HEADER_BYTES : 0) + (this.info.payloadBytes ?? MAX_OPUS_BYTES);
  }

  /** The RTP clock rate of what we send. */
  get sendClockRate(): number {
    return this.info.clockRate;
  }

  /**
   * Encodes one frame at 16 kHz (20 ms; a shorter one is padded with silence) into `out` (room for
   * `maxMessageBytes`) as `encode` would, for a sender that stamps each packet as it leaves: with
   * the rtp framing, the header's sequence number, timestamp and marker are left 0 (wire-writer.ts
   * fills them in). Returns the message's length; 0 if the frame could not be encoded. Not counted
   * as sent until `countSent` (a frame encoded ahead may be dropped by a barge-in).
   */
  encodeInto(samples: Int16Array, out: Uint8Array): number {
    if (samples.length > FRAME_SAMPLES) {
      throw new RangeError(`WsMediaEdge encodes 20 ms at ${SESSION_RATE} Hz, got ${samples.length} samples`);
    }
    let frame = samples;
    if (samples.length < FRAME_SAMPLES) {
      frame = new Int16Array(FRAME_SAMPLES);
      frame.set(samples);
    }
    const header = this.framing === 'rtp' ? RTP_HEADER_BYTES : 0;
    const fixed = this.info.payloadBytes;
    let length: number;
    if (fixed !== null) {
      this.payloadCodec.encode(frame, out.subarray(header, header + fixed));
      length = fixed;
    } else {
      const payload = this.payloadCodec.encode(frame, null);
      if (payload.length > out.length - header) return 0;
      out.set(payload, header);
      length = payload.length;
    }
    if (header > 0) {
      out[0] = 0x80;
      out[1] = this.info.payloadType;
      out.fill(0, 2, 8);
      out[8] = this.ssrc >>> 24;
      out[9] = (this.ssrc >>> 16) & 0xff;
      out[10] = (this.ssrc >>> 8) & 0xff;
      out[11] = this.ssrc & 0xff;
    }
    return header + length;
  }

  /** A frame `encodeInto` encoded left (for `framesOut`). */
  countSent(): void {
    this.sent += 1;
  }

  /** The sequence number and timestamp `encode` would give the next packet (the first sent). */
  get nextRtp(): { sequence: number; timestamp: number } {
    return { sequence: this.sequence, timestamp: this.timestamp };
  }

  /**
   * Takes one binary message from the client; returns null when accepted, else why not. With the
   * rtp framing the jitter buffer keeps a view of `data` until it is played: do not reuse it.
   * `arrivedAt` (ms, any clock) is when it came, for the jitter (none is measured without it).
   * With the payload framing its audio is then ready to take (`takeArrived`).
   */
  accept(data: Uint8Array, arrivedAt?: number): WsInboundError | null {
    const error = this.acceptMessage(data, arrivedAt);
    if (error === null) this.received += 1;
    else this.refused += 1;
    return error;
  }

  /**
   * Payload framing: the next 20 ms frame of what came, or null once all of it was taken. Called
   * right after `accept` until null: a message's frames come out in order, timed on the payload
   * timeline (WS_PAYLOAD_TIMING; an Opus packet of 60 ms gives three). Audio short of a frame (an
   * Opus packet of 10 ms) waits for the next message. Null with the rtp framing (its frames wait
   * in the jitter buffer for their tick: `next`).
   */
  takeArrived(arrivedAt: number): AudioFrame | null {
    if (this.jitter || this.queue.length < this.frameSamples) return null;
    const { backfillMs, aheadMs, burstMs, catchUpMs } = WS_PAYLOAD_TIMING;
    const end = this.timelineEnd;
    const steady = this.lastPayloadAt === null || arrivedAt - this.lastPayloadAt >= burstMs;
    this.lastPayloadAt = arrivedAt;
    const frame = this.shiftFrame(0);
    // A frame that just came was captured over the 20 ms before it was sent: it started then.
    const started = arrivedAt - FRAME_MS;
    let at: number;
    if (end === null || end < started - backfillMs) at = Math.max(started, this.lastFilledAt + 1);
    else if (end > started && steady && isQuiet(frame.samples)) at = Math.max(started, end - catchUpMs);
    else at = Math.min(end, started + aheadMs);
    this.timelineEnd = at + FRAME_MS;
    frame.at = at;
    return frame;
  }

  /** Payload framing: where the audio handed over so far ends (null: none yet). */
  get audioUntil(): number | null {
    return this.timelineEnd;
  }

  /**
   * Payload framing: the leg handed the session a frame of silence timed `at` (nothing came). The
   * next frame that comes is timed after it: the session keeps its frames in time order.
   */
  filledSilence(at: number): void {
    this.lastFilledAt = at;
  }

  /**
   * RTP framing: the next 20 ms of the client's audio, from the jitter buffer (a lost packet
   * concealed), or null when nothing is due. With the payload framing, what `takeArrived` left.
   */
  next(at: number): AudioFrame | null {
    if (this.jitter) this.playOut(this.jitter);
    if (this.queue.length < this.frameSamples) return null;
    return this.shiftFrame(at);
  }

  /** Frees the Opus codec's memory (the wasm build does not free it when collected); idempotent. */
  close(): void {
    this.payloadCodec.close();
  }

  private shiftFrame(at: number): { -readonly [K in keyof AudioFrame]: AudioFrame[K] } {
    const samples = new Int16Array(this.frameSamples); // the caller keeps the frame
    this.queue.shiftInto(samples);
    return { samples, sampleRate: this.receiveRate, at };
  }

  private acceptMessage(data: Uint8Array, arrivedAt: number | undefined): WsInboundError | null {
    if (data.length > MAX_MESSAGE_BYTES) return 'too_large';
    if (!this.jitter) {
      const sizeError = this.checkPayloadSize(data.length);
      if (sizeError) return sizeError;
      const count = this.payloadCodec.decode(data, this.decoded);
      if (count === 0) return 'bad_opus';
      this.enqueue(count);
      return null;
    }
    const parsed = parseRtp(data);
    if (!parsed.ok) return 'bad_rtp';
    const { packet } = parsed;
    if (packet.payloadType !== this.info.payloadType) return 'wrong_payload_type';
    const sizeError = this.checkPayloadSize(packet.payload.length);
    if (sizeError) return sizeError;
    this.reception?.add(packet, arrivedAt);
    this.jitter.insert(packet);
    return null;
  }

  private checkPayloadSize(bytes: number): 'bad_size' | null {
    const expected = this.info.payloadBytes;
    if (expected === null) return bytes >= 1 && bytes <= MAX_OPUS_BYTES ? null : 'bad_size';
    return bytes === expected ? null : 'bad_size';
  }

  /**
   * Queues `count` decoded samples. The queue holds under a frame when this is called (the frames
   * before were taken), so it has room; should a caller not take them, the oldest whole frames
   * go, counted as lost.
   */
  private enqueue(count: number): void {
    const overflow = this.queue.length + count - this.queue.capacity;
    if (overflow > 0) {
      const frames = Math.ceil(overflow / this.frameSamples);
      this.queue.drop(Math.min(this.queue.length, frames * this.frameSamples));
      this.lostHere += frames;
    }
    this.queue.push(this.decoded, count);
  }

  /**
   * Pops from the jitter buffer until a whole frame is queued. One pop is one packet, usually
   * 20 ms; an Opus packet of another length leaves a rest (or a shortfall) for the next tick.
   */
  private playOut(jitter: JitterBuffer): void {
    while (this.queue.length < this.frameSamples) {
      const frame = jitter.pop();
      if (frame.kind === 'waiting') return;
      let count = 0;
      if (frame.kind === 'frame') {
        count = this.payloadCodec.decode(frame.payload, this.decoded);
        if (count === 0) this.lostHere += 1; // arrived but is not Opus: played as a loss
      }
      if (count === 0) count = this.payloadCodec.conceal(this.decoded);
      this.enqueue(count);
    }
  }
}
