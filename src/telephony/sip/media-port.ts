import type { AudioFrame, LinkStats, MediaReceiver } from '../../media/index.ts';
import type { MediaDirection, SdpCodecName } from './sdp.ts';

// What the SIP carrier needs of the RTP media path (src/telephony/rtp/ implements it, off the main
// thread): a local port per call for our SDP, then the media half of the call's leg.

export interface SipMediaRemote {
  address: string;
  port: number;
  codec: SdpCodecName;
  payloadType: number;
  telephoneEvent: number | null;
  /** Our direction after negotiation. */
  direction: MediaDirection;
}

export interface SipMediaEndpoint {
  readonly port: number;
  update(remote: SipMediaRemote): void;
  receive(receiver: MediaReceiver): void;
  play(frame: AudioFrame): void;
  clear(fadeFrames?: number): void;
  readonly playedMs: number;
  readonly queuedMs: number;
  drained(): Promise<void>;
  sendDtmf(digits: string): Promise<void>;
  linkStats(): LinkStats;
  onTimeout(handler: () => void): void;
  close(): void;
}

export interface SipMediaPort {
  allocate(): Promise<SipMediaEndpoint>;
}
