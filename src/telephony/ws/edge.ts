// The codec and framing edge of a WebSocket media call (the codecs and the RTP reception statistics
// are media's, shared with SIP): turns Parley's 16 kHz 20 ms frames into
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
  MAX_OPUS_BYTES,
  OPUS_MAX_PACKET_FRAMES,
  RtpReception,
  SESSION_RATE,
  SampleQueue,
  buildRtp,
  createPayloadCodec,
  parseRtp,
  samplesPerFrame,
  seqAdd,
  tsAdd,
  type AudioFrame,
  type LinkStats,
  type PayloadCodec,
  type PayloadCodecName,
  type SampleRate,
} from '../../media/index.ts';

export type WsCodec = PayloadCodecName;
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
/** An RTP header without CSRCs or extension, as we send it. */
const RTP_HEADER_BYTES = 12;
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
 * When our own event loop read nothing for a while (it stalled: the client's frames waited in the
 * socket), the back-fill reaches that much further, so the burst read after the stall fills the
 * gap it left instead of being timed ahead of the clock by the stall's length.
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
    this.payloadCodec = createPayloadCodec(codec);
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
   * in the jitter buffer for their tick: `next`). `unreadSince`: when the socket was read before
   * the read that brought this message (default `arrivedAt`): a stall of the reader's event loop
   * in between widens the back-fill by its length, since the client's frames waited that long.
   */
  takeArrived(arrivedAt: number, unreadSince: number = arrivedAt): AudioFrame | null {
    if (this.jitter || this.queue.length < this.frameSamples) return null;
    const { backfillMs, aheadMs, burstMs, catchUpMs } = WS_PAYLOAD_TIMING;
    const end = this.timelineEnd;
    const steady = this.lastPayloadAt === null || arrivedAt - this.lastPayloadAt >= burstMs;
    this.lastPayloadAt = arrivedAt;
    const frame = this.shiftFrame(0);
    // A frame that just came was captured over the 20 ms before it was sent: it started then.
    const started = arrivedAt - FRAME_MS;
    // Our event loop read nothing since `unreadSince` (it stalled): the client's frames of that
    // time waited in the socket, so the gap they left is ours to fill back, not the client's pause.
    const backfill = backfillMs + Math.max(0, arrivedAt - unreadSince - FRAME_MS);
    let at: number;
    if (end === null || end < started - backfill) at = Math.max(started, this.lastFilledAt + 1);
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
