// Pure audio (DESIGN.md section 2): frames, codecs, resampling, RTP, jitter buffer, DTMF. No I/O.
export {
  FRAME_MS,
  SESSION_RATE,
  samplesPerFrame,
  silentFrame,
  type AudioFrame,
  type SampleRate,
} from './frame.ts';
export {
  TransferRefusedError,
  wrapLeg,
  type LegEndReason,
  type LegOverrides,
  type LinkStats,
  type MediaLeg,
  type MediaReceiver,
} from './leg.ts';
export { createDataSpeechReader, dataSpeechFrames, type DataSpeechReader } from './data-speech.ts';
export {
  alawDecode,
  alawDecodeInto,
  alawEncode,
  alawEncodeInto,
  mulawDecode,
  mulawDecodeInto,
  mulawEncode,
  mulawEncodeInto,
} from './g711.ts';
export { l16Decode, l16DecodeInto, l16Encode, l16EncodeInto } from './l16.ts';
export { RateConverter, Resampler } from './resampler.ts';
export { createOpusCodec, type OpusCodec, type OpusCodecOptions } from './opus.ts';
export {
  MAX_OPUS_BYTES,
  OPUS_MAX_PACKET_FRAMES,
  createPayloadCodec,
  type PayloadCodec,
  type PayloadCodecName,
} from './payload-codec.ts';
export { SampleQueue } from './sample-queue.ts';
export {
  buildRtp,
  parseRtp,
  rtpLength,
  writeRtp,
  type RtpHeaderExtension,
  type RtpPacket,
  type RtpPacketInit,
  type RtpParseError,
  type RtpParseResult,
} from './rtp.ts';
export { seqAdd, seqDiff, tsAdd, tsDiff } from './rtp-seq.ts';
export { RtpReception, type RtpStreamPacket } from './rtp-reception.ts';
export {
  JitterBuffer,
  type JitterBufferOptions,
  type JitterFrame,
  type JitterInsertResult,
  type JitterPacket,
  type JitterStats,
} from './jitter-buffer.ts';
export {
  DTMF_DIGITS,
  DTMF_HIGH_HZ,
  DTMF_LOW_HZ,
  dtmfDigitOf,
  dtmfEventCode,
  dtmfFrequencies,
  dtmfKeyAt,
} from './dtmf-digits.ts';
export {
  TELEPHONE_EVENT_BYTES,
  encodeTelephoneEvent,
  parseTelephoneEvent,
  writeTelephoneEvent,
  type TelephoneEvent,
} from './telephone-event.ts';
export {
  telephoneEventPackets,
  type TelephoneEventOptions,
  type TelephoneEventPacket,
} from './dtmf-sender.ts';
export { TelephoneEventReceiver } from './dtmf-receiver.ts';
export { dtmfTones, type DtmfToneOptions } from './dtmf-tone.ts';
export { DtmfDetector } from './dtmf-detector.ts';
export { createLegFloor, type LegFloor } from './floor.ts';
export { relayTo, type Relay } from './relay.ts';
export { holdMusic } from './hold-music.ts';
export { monoWav, wavHeader } from './wav.ts';
