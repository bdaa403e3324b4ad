// A jitter buffer for received RTP payloads, one packet per 20 ms frame, ordered by sequence
// number. Packets go in as they arrive, in any order; the playout clock takes one frame out per
// tick. Playout starts (and restarts after the buffer runs dry, e.g. over an Opus DTX silence)
// once `targetFrames` frames are held, which absorbs that much network jitter at that much delay.
// A gap becomes a 'missing' frame for the caller to conceal; a packet whose slot has already been
// played is late and dropped. A new SSRC, or a sequence jump confirmed by a second packet (RFC
// 3550 appendix A.1), starts over. Slots are preallocated; nothing is copied.
import { seqAdd, seqDiff } from './rtp-seq.ts';

/** What the buffer needs of a packet; an `RtpPacket` is one. */
export interface JitterPacket {
  readonly sequence: number;
  readonly timestamp: number;
  readonly ssrc: number;
  readonly marker: boolean;
  readonly payload: Uint8Array;
}

export interface JitterBufferOptions {
  /** Frames held before playout starts; default 3 (60 ms). */
  targetFrames?: number;
  /**
   * Frames held beyond which the oldest are dropped to bring the delay back to the target (after a
   * network stall releases a burst, or a sender whose clock runs fast); default 4 x target.
   */
  maxFrames?: number;
}

export type JitterFrame =
  /** The next frame's payload. */
  | {
      readonly kind: 'frame';
      readonly sequence: number;
      readonly timestamp: number;
      readonly marker: boolean;
      readonly payload: Uint8Array;
    }
  /** The next frame never arrived: conceal it. */
  | { readonly kind: 'missing'; readonly sequence: number }
  /** Nothing to play yet: still filling, or the sender went quiet. */
  | { readonly kind: 'waiting' };

export type JitterInsertResult =
  | 'buffered'
  | 'duplicate'
  /** Its slot was already played (or declared missing). */
  | 'late'
  /** Far outside the window: held until a next packet confirms a jump. */
  | 'held'
  /** A new stream (SSRC change or confirmed jump): the buffer started over with it. */
  | 'resynced';

export interface JitterStats {
  /** Packets given to `insert`. */
  received: number;
  /** Frames played out as missing, or skipped while empty to cut the delay. */
  lost: number;
  late: number;
  duplicate: number;
  /** Packets that arrived after one with a higher sequence number, in time to play. */
  reordered: number;
  /** Frames that arrived but were skipped to cut the delay. */
  dropped: number;
  /** Times the buffer started over on a new stream. */
  resyncs: number;
}

// 64 slots: a power of two that divides 2^16, so `sequence & MASK` stays right across the wrap.
const WINDOW = 64;
const MASK = WINDOW - 1;
// RFC 3550 A.1 MAX_MISORDER: further behind than this is not a late packet but a new sequence.
const MAX_MISORDER = 100;
const WAITING: JitterFrame = Object.freeze({ kind: 'waiting' });

export class JitterBuffer {
  readonly targetFrames: number;
  readonly maxFrames: number;
  readonly stats: JitterStats = {
    received: 0,
    lost: 0,
    late: 0,
    duplicate: 0,
    reordered: 0,
    dropped: 0,
    resyncs: 0,
  };
  private readonly payloads: (Uint8Array | null)[] = new Array<Uint8Array | null>(WINDOW).fill(null);
  private readonly sequences = new Int32Array(WINDOW).fill(-1);
  private readonly timestamps = new Float64Array(WINDOW);
  private readonly markers = new Uint8Array(WINDOW);
  private started = false;
  private ssrc = 0;
  private playing = false;
  /** Whether anything was played since the stream (re)started: until then an earlier packet may move the start back. */
  private played = false;
  /** The sequence number of the next frame out. */
  private next = 0;
  /** The highest sequence number held or played. */
  private highest = 0;
  private held: JitterPacket | null = null;

  constructor(options: JitterBufferOptions = {}) {
    this.targetFrames = options.targetFrames ?? 3;
    this.maxFrames = options.maxFrames ?? this.targetFrames * 4;
    if (!Number.isInteger(this.targetFrames) || this.targetFrames < 1)
      throw new RangeError('targetFrames must be 1 or more');
    if (!Number.isInteger(this.maxFrames) || this.maxFrames < this.targetFrames || this.maxFrames > WINDOW) {
      throw new RangeError(`maxFrames must be between targetFrames and ${WINDOW}`);
    }
  }

  /** Frames from the next one out to the newest held, gaps included. */
  get depth(): number {
    return this.started ? Math.max(0, seqDiff(this.highest, this.next) + 1) : 0;
  }

  insert(packet: JitterPacket): JitterInsertResult {
    this.stats.received += 1;
    if (!this.started || packet.ssrc !== this.ssrc) {
      const isNew = this.started;
      this.restart(packet);
      if (!isNew) return 'buffered';
      this.stats.resyncs += 1;
      return 'resynced';
    }
    const ahead = seqDiff(packet.sequence, this.next);
    if (ahead >= WINDOW) return this.jump(packet);
    if (ahead < 0) {
      if (!this.played && seqDiff(this.highest, packet.sequence) < WINDOW) {
        // Nothing played yet: an earlier packet overtaken on the way becomes the first.
        this.next = packet.sequence;
      } else if (ahead >= -MAX_MISORDER) {
        this.stats.late += 1;
        return 'late';
      } else {
        return this.jump(packet);
      }
    }
    return this.store(packet);
  }

  /** The frame for this tick. */
  pop(): JitterFrame {
    if (!this.started) return WAITING;
    const depth = seqDiff(this.highest, this.next) + 1;
    if (depth <= 0) {
      this.playing = false; // ran dry: fill up to the target again before playing on
      return WAITING;
    }
    if (!this.playing) {
      if (depth < this.targetFrames) return WAITING;
      this.playing = true;
    }
    if (depth > this.maxFrames) this.skip(depth - this.targetFrames);
    const sequence = this.next;
    const slot = sequence & MASK;
    const payload = this.sequences[slot] === sequence ? this.payloads[slot]! : null;
    this.clear(slot);
    this.next = seqAdd(sequence, 1);
    this.played = true;
    if (!payload) {
      this.stats.lost += 1;
      return { kind: 'missing', sequence };
    }
    return {
      kind: 'frame',
      sequence,
      timestamp: this.timestamps[slot]!,
      marker: this.markers[slot] === 1,
      payload,
    };
  }

  /** Forgets everything held; the next packet starts a stream (counters are kept). */
  reset(): void {
    for (let slot = 0; slot < WINDOW; slot += 1) this.clear(slot);
    this.started = false;
    this.playing = false;
    this.played = false;
    this.held = null;
  }

  private store(packet: JitterPacket): JitterInsertResult {
    const { sequence } = packet;
    const slot = sequence & MASK;
    if (this.sequences[slot] === sequence) {
      this.stats.duplicate += 1;
      return 'duplicate';
    }
    if (seqDiff(sequence, this.highest) < 0) this.stats.reordered += 1;
    else this.highest = sequence;
    this.sequences[slot] = sequence;
    this.payloads[slot] = packet.payload;
    this.timestamps[slot] = packet.timestamp;
    this.markers[slot] = packet.marker ? 1 : 0;
    this.held = null; // the stream goes on where it was: a held stray packet was just that
    return 'buffered';
  }

  /** A packet far from the window: a jump if the next packet follows it, else a stray. */
  private jump(packet: JitterPacket): JitterInsertResult {
    const held = this.held;
    if (held && seqDiff(packet.sequence, held.sequence) === 1) {
      this.stats.resyncs += 1;
      this.restart(held);
      this.store(packet);
      return 'resynced';
    }
    this.held = packet;
    return 'held';
  }

  private restart(first: JitterPacket): void {
    this.reset();
    this.started = true;
    this.ssrc = first.ssrc;
    this.next = first.sequence;
    this.highest = first.sequence;
    this.store(first);
  }

  /** Moves the next frame out `count` frames on, counting what is skipped. */
  private skip(count: number): void {
    for (let i = 0; i < count; i += 1) {
      const slot = this.next & MASK;
      if (this.sequences[slot] === this.next) this.stats.dropped += 1;
      else this.stats.lost += 1;
      this.clear(slot);
      this.next = seqAdd(this.next, 1);
    }
  }

  private clear(slot: number): void {
    this.sequences[slot] = -1;
    this.payloads[slot] = null;
  }
}
