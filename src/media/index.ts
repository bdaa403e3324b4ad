// Pure audio (DESIGN.md section 2): frames, codecs, resampling, RTP, jitter buffer, DTMF. No I/O.
export {
  FRAME_MS,
  SESSION_RATE,
  samplesPerFrame,
  silentFrame,
  type AudioFrame,
  type SampleRate,
} from './frame.ts';
export type { LegEndReason, MediaLeg, MediaReceiver } from './leg.ts';
export { createDataSpeechReader, dataSpeechFrames, type DataSpeechReader } from './data-speech.ts';
