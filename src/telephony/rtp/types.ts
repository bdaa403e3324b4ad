import type { Clock, Logger } from '../../core/index.ts';
import type { AudioFrame, LinkStats, MediaReceiver } from '../../media/index.ts';
import type { RtpSendTiming } from './send-timing.ts';

// What the SIP carrier composes with its dialogs (docs/sip.md, "Media (RTP)"): one RtpMedia per
// node owns the media worker and the RTP port range; each call's media is an RtpEndpoint, the media
// half of its leg.

export interface RtpMediaOptions {
  /** The address the RTP sockets bind, e.g. '127.0.0.1' or '0.0.0.0' (IPv4; IPv6 when it has a ':'). */
  bindAddress: string;
  /** The RTP port range: even ports from portMin to portMax (RTCP is neither sent nor read). */
  portMin: number;
  portMax: number;
  /** The main thread's clock (the beat that hands frames over); default the system's. */
  clock?: Clock;
  logger?: Logger;
  /**
   * Where the sockets, jitter buffers and codecs live: 'worker' (default), a media worker thread;
   * 'caller', this thread on `clock`'s beat (deterministic tests on a manual clock; also what a
   * worker that keeps dying falls back to).
   */
  thread?: 'worker' | 'caller';
  /** No RTP this long while media is active (not on hold) -> onTimeout; default 30 s. */
  rtpTimeoutMs?: number;
  /**
   * Send encoded silence while the agent is quiet (default true): trunks and session border
   * controllers expect a continuous stream and some end a silent one.
   */
  comfortSilence?: boolean;
}

export interface RtpMedia {
  /** Binds a free even UDP port in the range; rejects (code `rtp_ports_exhausted`) when none is. */
  allocate(): Promise<RtpEndpoint>;
  /** Closes every endpoint and the media worker. */
  close(): Promise<void>;
  /** Endpoints allocated and not yet closed. */
  readonly inUse: number;
  /** Where the media runs now: 'caller' after a worker that kept dying was given up. */
  readonly thread: 'worker' | 'caller';
  /**
   * How late the media thread has sent, since the media was created: per RTP packet, against its
   * slot on the 20 ms grid, and per tick of its beat (a copy; `timingSince` of two gives a window).
   */
  sendTiming(): RtpSendTiming;
}

export type RtpCodecName = 'PCMU' | 'PCMA' | 'opus';
export type RtpDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

export interface RtpRemote {
  /** From the far end's SDP (c= / m=): where to send until its own packets say otherwise. */
  address: string;
  port: number;
  /** The negotiated audio codec and its payload type. */
  codec: RtpCodecName;
  payloadType: number;
  /** The negotiated telephone-event payload type (its clock is the audio's), null when none. */
  telephoneEvent: number | null;
  /** OUR direction after negotiation (RFC 3264): we send in sendrecv/sendonly, receive in sendrecv/recvonly. */
  direction: RtpDirection;
}

export interface RtpEndpoint {
  /** The local RTP port for our SDP. */
  readonly port: number;
  /** Starts or changes media (answer/ACK, re-INVITE: new address, codec, hold, resume). */
  update(remote: RtpRemote): void;
  /** The far end's audio as 20 ms frames with their time, and its keys (one receiver). */
  receive(receiver: MediaReceiver): void;
  /** Queues the agent's audio (16 kHz) for paced playout; ignored once closed. */
  play(frame: AudioFrame): void;
  /** Drops what is queued (MediaLeg.clear). */
  clear(fadeFrames?: number): void;
  readonly playedMs: number;
  readonly queuedMs: number;
  drained(): Promise<void>;
  /** RFC 4733 events when negotiated, else in-band tones; resolves once sent. */
  sendDtmf(digits: string): Promise<void>;
  linkStats(): LinkStats;
  /** Called once when no RTP came for rtpTimeoutMs while media is active (sendrecv). */
  onTimeout(handler: () => void): void;
  /** Frees the port; idempotent. */
  close(): void;
}
