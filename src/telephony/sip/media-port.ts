import type { RtpEndpoint, RtpRemote } from '../rtp/index.ts';

// What the SIP carrier needs of the RTP media path: a local port per call for our SDP, then the
// media half of the call's leg (src/telephony/rtp/, off the main thread).

export type SipMediaRemote = RtpRemote;
export type SipMediaEndpoint = RtpEndpoint;

export interface SipMediaPort {
  allocate(): Promise<SipMediaEndpoint>;
}
