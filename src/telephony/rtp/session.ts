import type { Socket } from 'node:dgram';
import {
  DtmfDetector,
  JitterBuffer,
  MAX_OPUS_BYTES,
  OPUS_MAX_PACKET_FRAMES,
  RtpReception,
  SESSION_RATE,
  SampleQueue,
  TelephoneEventReceiver,
  createPayloadCodec,
  parseRtp,
  samplesPerFrame,
  telephoneEventPackets,
  type PayloadCodec,
  type TelephoneEventPacket,
} from '../../media/index.ts';
import { SENT_LAST, sendBeat, type RingView } from '../pacing/index.ts';
import {
  EVENT_DIGIT,
  EVENT_DTMF_SENT,
  EVENT_TIMEOUT,
  SEND_LAST_AT,
  SEND_SEQUENCE,
  SEND_SSRC,
  SEND_TIMESTAMP,
  STAT_FOREIGN,
  STAT_IN,
  STAT_JITTER,
  STAT_LATE,
  STAT_LOSS,
  STAT_LOST,
  STAT_OUT,
  STAT_REFUSED,
  STAT_REORDERED,
  writeEvent,
  writeFrame,
  type EndpointView,
} from './shared.ts';
import type { SendTimingRecorder } from './send-timing.ts';
import type { RtpCodecName, RtpRemote } from './types.ts';

// One call's RTP, on the thread that runs the media (the media worker, or the main thread in
// `caller` mode): its UDP socket, the codec, the jitter buffer, the reception statistics and the
// key events. On each 20 ms beat it sends the frame the leg queued in its FrameRing (or comfort
// silence, or a telephone-event packet) and hands the leg one decoded frame through the shared
// endpoint memory (shared.ts). Packets are checked from the cheapest test up, so a flood of garbage
// costs a few comparisons each.

/** Per codec: RTP clock rate and what the payload codec calls it. */
const CODECS: Record<RtpCodecName, { name: 'pcmu' | 'pcma' | 'opus'; clockRate: number }> = {
  PCMU: { name: 'pcmu', clockRate: 8000 },
  PCMA: { name: 'pcma', clockRate: 8000 },
  opus: { name: 'opus', clockRate: 48000 },
};
/** RFC 3389 comfort noise: the far end is alive, and there is nothing to play. */
const COMFORT_NOISE_PT = 13;
const RTP_HEADER = 12;
const MAX_PACKET = 1500;
/** G.711 at ptime 20: the only payload size taken (what our SDP asks for). */
const G711_BYTES = 160;
/** A packet more than a beat and a half after the last one sent starts a talkspurt (marker). */
const GAP_MS = 30;
/** Beats of audio between two keys sent as telephone events. */
const DIGIT_GAP_BEATS = 3;
/** Packets sent are written into these in turn: a send still queued in the kernel keeps its bytes. */
const SEND_BUFFERS = 8;
const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);
const JITTER_TARGET_FRAMES = 3;
const JITTER_MAX_FRAMES = 12;

export interface SessionOptions {
  timeoutMs: number;
  comfortSilence: boolean;
}

/** The codec half of a session: replaced when a re-INVITE changes the codec. */
interface Receiving {
  readonly codec: RtpCodecName;
  readonly payloadType: number;
  readonly clockRate: number;
  readonly payload: PayloadCodec;
  readonly jitter: JitterBuffer;
  readonly queue: SampleQueue;
  readonly decoded: Int16Array;
  readonly frame: Int16Array;
  readonly frameSamples: number;
  /** Encoded silence (G.711's is fixed; Opus's is encoded each time). */
  readonly silence: Uint8Array | null;
}

function receivingFor(remote: RtpRemote): Receiving {
  const { name, clockRate } = CODECS[remote.codec];
  const payload = createPayloadCodec(name);
  const frameSamples = samplesPerFrame(payload.receiveRate);
  const silence = name === 'opus' ? null : payload.encode(new Int16Array(FRAME_SAMPLES), null).slice();
  return {
    codec: remote.codec,
    payloadType: remote.payloadType,
    clockRate,
    payload,
    jitter: new JitterBuffer({ targetFrames: JITTER_TARGET_FRAMES, maxFrames: JITTER_MAX_FRAMES }),
    queue: new SampleQueue((OPUS_MAX_PACKET_FRAMES + 1) * frameSamples),
    decoded: new Int16Array(payload.maxDecoded),
    frame: new Int16Array(frameSamples),
    frameSamples,
    silence,
  };
}

export class RtpSession {
  private remote: RtpRemote | null = null;
  private rx: Receiving | null = null;
  private reception: RtpReception | null = null;
  private latched: { address: string; port: number } | null = null;
  private sending = false;
  private receiving = false;
  private timeoutActive = false;
  private timedOut = false;
  private lastRtpAt = 0;
  private lastSentAt = Number.NaN;
  private readonly tones = new TelephoneEventReceiver();
  private detector: DtmfDetector | null = null;
  /** Keys to send as telephone events: requests in order, the current one's packets. */
  private readonly keyQueue: { id: number; digits: string[] }[] = [];
  private keyPackets: TelephoneEventPacket[] | null = null;
  private keyPacket = 0;
  private keyGap = 0;
  private readonly sendBuffers = Array.from({ length: SEND_BUFFERS }, () => Buffer.alloc(MAX_PACKET));
  private nextBuffer = 0;
  private readonly padded = new Int16Array(FRAME_SAMPLES);
  private readonly silentFrame16 = new Int16Array(FRAME_SAMPLES);
  private received = 0;
  private refused = 0;
  private foreign = 0;
  private sent = 0;
  private lostHere = 0;
  private closed = false;
  private sendErrors = 0;
  /** Called for every frame the ring sends while the beat runs (bound once: no closure per beat). */
  private readonly onSlot: (slot: number, talkspurtStart: boolean, gridAt: number) => void;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    private readonly view: EndpointView,
    private readonly ring: RingView,
    private readonly options: SessionOptions,
    private readonly now: () => number,
    /** Where each packet's lateness against its slot is counted (send-timing.ts). */
    private readonly timing: SendTimingRecorder,
  ) {
    this.onSlot = (slot, talkspurtStart, gridAt) => this.sendSlot(slot, talkspurtStart, gridAt);
    socket.on('message', (message: Buffer, rinfo) => this.packet(message, rinfo.address, rinfo.port));
    // A send the kernel refused (an unreachable far end): never fatal to the thread.
    socket.on('error', () => {
      this.sendErrors += 1;
    });
  }

  get port(): number {
    return this.socket.address().port;
  }

  /** Starts or changes media (RtpEndpoint.update). */
  update(remote: RtpRemote): void {
    const before = this.remote;
    if (!before || before.address !== remote.address || before.port !== remote.port) this.latched = null;
    if (!this.rx || this.rx.codec !== remote.codec || this.rx.payloadType !== remote.payloadType) {
      this.rx?.payload.close();
      this.rx = receivingFor(remote);
      if (!this.reception || (before && CODECS[before.codec].clockRate !== this.rx.clockRate))
        this.reception = new RtpReception(this.rx.clockRate);
      this.tones.reset();
    }
    this.detector =
      remote.telephoneEvent === null
        ? (this.detector ?? new DtmfDetector(this.rx.payload.receiveRate))
        : null;
    if (this.detector && this.detector.sampleRate !== this.rx.payload.receiveRate)
      this.detector = new DtmfDetector(this.rx.payload.receiveRate);
    this.sending = remote.direction === 'sendrecv' || remote.direction === 'sendonly';
    this.receiving = remote.direction === 'sendrecv' || remote.direction === 'recvonly';
    const active = remote.direction === 'sendrecv';
    // Held or inactive media sends nothing it must; resuming gives the far end the full time again.
    if (active && !this.timeoutActive) this.lastRtpAt = this.now();
    this.timeoutActive = active;
    this.remote = remote;
    if (!this.sending) this.finishKeys();
  }

  /** Sends `digits` as telephone events (the caller checked one was negotiated). */
  sendKeys(requestId: number, digits: string): void {
    this.keyQueue.push({ id: requestId, digits: [...digits] });
    if (!this.sending || this.remote?.telephoneEvent == null) this.finishKeys();
  }

  /** One 20 ms beat at `gridAt`: our frame out, the far end's frame in, the RTP timeout. */
  beat(gridAt: number): void {
    if (this.closed) return;
    const now = this.now();
    const rx = this.rx;
    const remote = this.remote;
    if (!rx || !remote) {
      sendBeat(this.ring, gridAt, now); // not started: what is queued plays to nobody
      return;
    }
    if (!this.sendKey(gridAt)) {
      sendBeat(this.ring, gridAt, now, this.sending ? this.onSlot : undefined);
      if (this.sending && this.options.comfortSilence && this.ring.control[SENT_LAST] === 0)
        this.sendAudio(rx, this.silentFrame16, gridAt, false);
    }
    this.deliver(rx, gridAt);
    if (this.timeoutActive && !this.timedOut && now - this.lastRtpAt >= this.options.timeoutMs) {
      this.timedOut = true;
      writeEvent(this.view, EVENT_TIMEOUT, 0, now);
    }
    this.writeStats();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.finishKeys();
    this.rx?.payload.close();
    try {
      this.socket.close();
    } catch {
      // Closed already (its thread is going away).
    }
  }

  private packet(message: Buffer, address: string, port: number): void {
    const rx = this.rx;
    const remote = this.remote;
    if (this.closed || !rx || !remote) return;
    const length = message.length;
    if (length < RTP_HEADER || length > MAX_PACKET || message[0]! >> 6 !== 2) {
      this.refuse();
      return;
    }
    const latched = this.latched;
    if (latched && (latched.port !== port || latched.address !== address)) {
      // Symmetric RTP: once latched, only that source is the far end.
      this.foreign += 1;
      this.refuse();
      return;
    }
    const payloadType = message[1]! & 0x7f;
    const isEvent = payloadType === remote.telephoneEvent;
    if (payloadType !== rx.payloadType && !isEvent && payloadType !== COMFORT_NOISE_PT) {
      this.refuse();
      return;
    }
    const parsed = parseRtp(message);
    if (!parsed.ok) {
      this.refuse();
      return;
    }
    const rtp = parsed.packet;
    if (!isEvent && payloadType === rx.payloadType && !this.payloadSizeOk(rx, rtp.payload.length)) {
      this.refuse();
      return;
    }
    // Latch onto the first valid packet's source (the far end behind NAT sends from there).
    if (!latched) this.latched = { address, port };
    const now = this.now();
    this.lastRtpAt = now;
    if (!this.receiving || payloadType === COMFORT_NOISE_PT) return;
    if (isEvent) {
      const key = this.tones.push(rtp.payload, rtp.timestamp);
      if (key) writeEvent(this.view, EVENT_DIGIT, key.charCodeAt(0), now);
      return;
    }
    this.received += 1;
    this.view.stats[STAT_IN] = this.received;
    this.reception?.add(rtp, now);
    rx.jitter.insert(rtp); // keeps a view of `message`: Node gives each datagram its own buffer
  }

  /** A packet that is no frame of this call: counted (live, for the leg) and dropped. */
  private refuse(): void {
    this.refused += 1;
    this.view.stats[STAT_REFUSED] = this.refused;
  }

  private payloadSizeOk(rx: Receiving, bytes: number): boolean {
    return rx.codec === 'opus' ? bytes >= 1 && bytes <= MAX_OPUS_BYTES : bytes === G711_BYTES;
  }

  /** The ring's frame leaving now (sendBeat holds the slot while this runs). */
  private sendSlot(slot: number, talkspurtStart: boolean, gridAt: number): void {
    const rx = this.rx;
    if (!rx) return;
    const length = this.ring.outLengths[slot] ?? 0;
    const from = slot * FRAME_SAMPLES;
    let samples = this.ring.samples.subarray(from, from + FRAME_SAMPLES);
    if (length < FRAME_SAMPLES) {
      this.padded.fill(0);
      this.padded.set(this.ring.samples.subarray(from, from + length));
      samples = this.padded;
    }
    this.sendAudio(rx, samples, gridAt, talkspurtStart);
  }

  /** Stamps and sends one audio packet; the timestamp follows the beat's grid. */
  private sendAudio(rx: Receiving, samples: Int16Array, gridAt: number, talkspurtStart: boolean): void {
    const buffer = this.nextSendBuffer();
    let length: number;
    if (rx.silence && samples === this.silentFrame16) {
      buffer.set(rx.silence, RTP_HEADER);
      length = rx.silence.length;
    } else if (rx.codec === 'opus') {
      const payload = rx.payload.encode(samples, null);
      if (payload.length > MAX_PACKET - RTP_HEADER) return;
      buffer.set(payload, RTP_HEADER);
      length = payload.length;
    } else {
      rx.payload.encode(samples, buffer.subarray(RTP_HEADER, RTP_HEADER + G711_BYTES));
      length = G711_BYTES;
    }
    const timestamp = this.timestampAt(rx, gridAt);
    const marker = talkspurtStart || !(gridAt - this.lastSentAt <= GAP_MS);
    this.transmit(buffer, RTP_HEADER + length, rx.payloadType, marker, timestamp, gridAt);
    this.view.send[SEND_TIMESTAMP] = timestamp;
    this.view.send[SEND_LAST_AT] = gridAt;
  }

  private timestampAt(rx: Receiving, gridAt: number): number {
    const { send } = this.view;
    const last = send[SEND_TIMESTAMP] ?? 0;
    const lastAt = send[SEND_LAST_AT] ?? Number.NaN;
    if (Number.isNaN(lastAt)) return last;
    return (last + Math.round(((gridAt - lastAt) * rx.clockRate) / 1000)) >>> 0;
  }

  private nextSendBuffer(): Buffer {
    const buffer = this.sendBuffers[this.nextBuffer]!;
    this.nextBuffer = (this.nextBuffer + 1) % SEND_BUFFERS;
    return buffer;
  }

  private transmit(
    buffer: Buffer,
    length: number,
    payloadType: number,
    marker: boolean,
    timestamp: number,
    gridAt: number,
  ): void {
    const remote = this.remote;
    if (!remote) return;
    const { send } = this.view;
    const sequence = send[SEND_SEQUENCE] ?? 0;
    buffer[0] = 0x80;
    buffer[1] = (marker ? 0x80 : 0) | payloadType;
    buffer.writeUInt16BE(sequence, 2);
    buffer.writeUInt32BE(timestamp >>> 0, 4);
    buffer.writeUInt32BE((send[SEND_SSRC] ?? 0) >>> 0, 8);
    send[SEND_SEQUENCE] = (sequence + 1) & 0xffff;
    this.lastSentAt = gridAt;
    this.sent += 1;
    const to = this.latched ?? remote;
    // A datagram that cannot leave is lost like one on the network (the socket's 'error' below).
    this.socket.send(buffer.subarray(0, length), to.port, to.address);
    // The send is done by now (an IP address needs no lookup: host.ts), so this is when it left.
    this.timing.packet(this.now() - gridAt);
  }

  /**
   * Sends this beat's telephone-event packet, if a key is being sent; true when it did (the agent's
   * audio waits meanwhile).
   */
  private sendKey(gridAt: number): boolean {
    const remote = this.remote;
    const rx = this.rx;
    if (!remote || !rx || !this.sending || remote.telephoneEvent === null) return false;
    if (!this.keyPackets) {
      if (this.keyGap > 0) {
        this.keyGap -= 1;
        return false;
      }
      const request = this.keyQueue[0];
      if (!request) return false;
      const digit = request.digits.shift();
      if (digit === undefined) {
        this.keyQueue.shift();
        writeEvent(this.view, EVENT_DTMF_SENT, request.id, this.now());
        return false;
      }
      const timestamp = this.timestampAt(rx, gridAt);
      this.keyPackets = telephoneEventPackets(digit, { timestamp, clockRate: rx.clockRate });
      this.keyPacket = 0;
      // The stream's timestamp stands at the event's start; audio after it follows the grid.
      this.view.send[SEND_TIMESTAMP] = timestamp;
      this.view.send[SEND_LAST_AT] = gridAt;
    }
    const packet = this.keyPackets[this.keyPacket]!;
    const buffer = this.nextSendBuffer();
    buffer.set(packet.payload, RTP_HEADER);
    this.transmit(
      buffer,
      RTP_HEADER + packet.payload.length,
      remote.telephoneEvent,
      packet.marker,
      packet.timestamp,
      gridAt,
    );
    this.keyPacket += 1;
    if (this.keyPacket >= this.keyPackets.length) {
      this.keyPackets = null;
      this.keyGap = DIGIT_GAP_BEATS;
      const request = this.keyQueue[0];
      if (request && request.digits.length === 0) {
        this.keyQueue.shift();
        writeEvent(this.view, EVENT_DTMF_SENT, request.id, this.now());
      }
    }
    return true;
  }

  /** Keys that cannot go (on hold, closing): their requests end now, sent or not. */
  private finishKeys(): void {
    this.keyPackets = null;
    for (const request of this.keyQueue.splice(0))
      writeEvent(this.view, EVENT_DTMF_SENT, request.id, this.now());
  }

  /** Hands the leg this beat's frame: the far end's audio from the jitter buffer, else silence. */
  private deliver(rx: Receiving, gridAt: number): void {
    const { queue, frame, frameSamples } = rx;
    if (this.receiving) this.playOut(rx);
    if (queue.length >= frameSamples) queue.shiftInto(frame);
    else frame.fill(0);
    if (this.detector) {
      const keys = this.detector.push(frame);
      for (let i = 0; i < keys.length; i += 1) writeEvent(this.view, EVENT_DIGIT, keys.charCodeAt(i), gridAt);
    }
    writeFrame(this.view, frame, frameSamples, rx.payload.receiveRate, gridAt);
  }

  /** Pops from the jitter buffer until a whole frame is queued (as the WebSocket edge does). */
  private playOut(rx: Receiving): void {
    const { jitter, queue, payload, decoded, frameSamples } = rx;
    while (queue.length < frameSamples) {
      const next = jitter.pop();
      if (next.kind === 'waiting') return;
      let count = 0;
      if (next.kind === 'frame') {
        count = payload.decode(next.payload, decoded);
        if (count === 0) this.lostHere += 1;
      }
      if (count === 0) count = payload.conceal(decoded);
      const overflow = queue.length + count - queue.capacity;
      if (overflow > 0) {
        queue.drop(Math.min(queue.length, Math.ceil(overflow / frameSamples) * frameSamples));
        this.lostHere += 1;
      }
      queue.push(decoded, count);
    }
  }

  private writeStats(): void {
    const { stats } = this.view;
    const jitter = this.rx?.jitter.stats;
    const reception = this.reception;
    const expected = reception?.expected ?? 0;
    stats[STAT_IN] = this.received;
    stats[STAT_LOST] = (reception?.lost ?? 0) + this.lostHere + (jitter?.dropped ?? 0);
    stats[STAT_LATE] = jitter?.late ?? 0;
    stats[STAT_REORDERED] = jitter?.reordered ?? 0;
    stats[STAT_REFUSED] = this.refused;
    stats[STAT_OUT] = this.sent;
    stats[STAT_LOSS] = reception && expected > 0 ? reception.lost / expected : Number.NaN;
    stats[STAT_JITTER] = reception?.jitterMs ?? Number.NaN;
    stats[STAT_FOREIGN] = this.foreign;
  }
}
