// RTP media for SIP calls (docs/sip.md, "Media (RTP)"): what the SIP carrier composes with its
// dialogs.
export { RTP_TIMEOUT_MS, createRtpMedia, type RtpMediaTestOptions } from './media.ts';
export {
  TIMING_BUCKETS,
  TIMING_BUCKETS_PER_MS,
  latenessAbove,
  latenessPercentile,
  timingSince,
  type LatenessCounts,
  type RtpSendTiming,
} from './send-timing.ts';
export type {
  RtpCodecName,
  RtpDirection,
  RtpEndpoint,
  RtpMedia,
  RtpMediaOptions,
  RtpRemote,
} from './types.ts';
