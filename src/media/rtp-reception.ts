// RFC 3550 reception statistics of a far end's RTP stream, shared by the carriers that receive RTP
// (WebSocket media's rtp framing, SIP): loss by sequence number and interarrival jitter.
import { seqAdd, seqDiff, tsDiff } from './rtp-seq.ts';
import type { RtpPacket } from './rtp.ts';

/** What the statistics read of a packet. */
export type RtpStreamPacket = Pick<RtpPacket, 'ssrc' | 'sequence' | 'timestamp'>;

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
export class RtpReception {
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
  add(packet: RtpStreamPacket, arrivedAtMs: number | undefined): void {
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

  private restart(packet: RtpStreamPacket): void {
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
