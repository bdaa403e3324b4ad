// The real-time voice session (DESIGN.md section 5): turn taking, endpointing, barge-in,
// greeting modes, voicemail, idle reminders, maximum duration, over a carrier's MediaLeg.
export { runVoiceCall, type VoiceCallOptions, type VoiceLogger } from './session.ts';
export { sayOnLeg, type SayOnLegOptions } from './say-on-leg.ts';
export { callVoice, talk, type CallSpeech, type TalkOptions, type TalkResult } from './talk.ts';
export { runTextCall, type TextCallOptions, type TextTurns } from './text-call.ts';
export { textCallQuality, type TextCallQuality } from './text-quality.ts';
export {
  RECORDER_LIMITS,
  recordLeg,
  sealWav,
  wavHeader,
  wavSeconds,
  type LegRecording,
  type RecorderLogger,
  type RecorderStats,
  type RecordingInfo,
  type RecordingSink,
  type RecordLegOptions,
} from './recorder.ts';
export {
  CALL_FALLBACK_LINE,
  MAX_DURATION_LINE,
  type AnsweredBy,
  type VoiceCallOutcome,
  type VoiceCallResult,
  type VoiceCallStatus,
  type VoiceEndReason,
} from './outcome.ts';
export {
  DEFAULT_VOICE_SETTINGS,
  voiceSettingsOf,
  type GreetingMode,
  type NoiseType,
  type PatienceLevel,
  type VoiceAgentFields,
  type VoiceSettings,
} from './settings.ts';
export {
  voiceQuality,
  type TurnKind,
  type TurnMarks,
  type VoiceLinkQuality,
  type VoiceQuality,
  type VoiceTurnQuality,
} from './quality.ts';
export { PATIENCE_MS, endpointDelayMs } from './endpointing.ts';
export { MODEL_FIRST_TOKEN_TIMEOUT_MS, STT_FINAL_TIMEOUT_MS, TTS_AUDIO_TIMEOUT_MS } from './limits.ts';
export { isCompleteUtterance } from './complete-utterance.ts';
export { createSentenceChunker, type SentenceChunker } from './chunker.ts';
export { createBeepDetector, type BeepDetector, type BeepEvent } from './beep.ts';
export { soundsLikeMachine } from './voicemail.ts';
export { dtmfTurnText } from './dtmf.ts';
// How a call's transcript is written (`bot:`/`human:` lines), for turns read back from the store.
export { formatTranscript } from '../conversation/index.ts';
