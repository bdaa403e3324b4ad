export * from './llm/types.ts';
export * from './speech/types.ts';
export { collectChat, type CollectedChat } from './llm/collect.ts';
export * from './messaging/types.ts';
export { createOpenAILLM, type OpenAILLMOptions } from './llm/openai.ts';
export { createSimMessaging, type SimMessaging, type SimSentMessage } from './messaging/sim.ts';
export { createTwilioMessaging, createTwilioInboundParser } from './messaging/twilio.ts';
export {
  createModelRouter,
  type ModelChoice,
  type ModelRouter,
  type ModelRouterOptions,
} from './llm/router.ts';
export { createBuiltinLLM } from './llm/builtin/index.ts';
export * from './calendar/types.ts';
export {
  CALCOM_BOOKINGS_API_VERSION,
  CALCOM_DEFAULT_BASE_URL,
  CALCOM_SLOTS_API_VERSION,
  CalcomError,
  createCalcomCalendar,
  type CalcomOptions,
} from './calendar/calcom.ts';
export {
  VOICES,
  VOICE_PROVIDERS,
  findVoices,
  voiceById,
  type Voice,
  type VoiceGender,
  type VoiceQuery,
} from './voices.ts';
export { createEnergyVAD, type EnergyVADOptions } from './speech/vad-energy.ts';
export { createSileroVAD, type SileroVAD, type SileroVADOptions } from './speech/vad-silero.ts';
export { createFliteTTS, type FliteTTS, type FliteTTSOptions } from './speech/tts-flite.ts';
export {
  ELEVENLABS_DEFAULT_BASE_URL,
  ELEVENLABS_DEFAULT_MODEL,
  createElevenLabsTTS,
  type ElevenLabsTTSOptions,
} from './speech/tts-elevenlabs.ts';
export {
  CARTESIA_DEFAULT_BASE_URL,
  CARTESIA_DEFAULT_MODEL,
  CARTESIA_DEFAULT_VERSION,
  createCartesiaTTS,
  type CartesiaTTSOptions,
} from './speech/tts-cartesia.ts';
export {
  createSimulatedVoice,
  type SimulatedVoice,
  type SimulatedVoiceOptions,
} from './speech/simulated-voice.ts';
export { DEFAULT_FLITE_VOICE, FLITE_VOICES, type FliteVoice } from './speech/tts-flite-voices.ts';
// Lower level, for measurement (bench/tts.ts): one synthesis on the calling thread, which it blocks.
export { fliteModule } from './speech/tts-flite-module.ts';
export { synthesizeFlite, type FliteAudio, type FliteRequest } from './speech/tts-flite-synth.ts';
export {
  createPocketSphinxSTT,
  type PocketSphinxSTT,
  type PocketSphinxSTTOptions,
} from './speech/stt-pocketsphinx.ts';
export {
  POCKETSPHINX_INSTALL,
  checkPocketSphinx,
  pocketSphinxAvailable,
  type PocketSphinxCheck,
  type PocketSphinxInstall,
} from './speech/stt-pocketsphinx-availability.ts';
export {
  createFailoverSTT,
  DEFAULT_STT_FINAL_TIMEOUT_MS,
  type FailoverSTTOptions,
} from './speech/stt-failover.ts';
export {
  createFailoverTTS,
  DEFAULT_TTS_AUDIO_TIMEOUT_MS,
  type FailoverTTSEntry,
  type FailoverTTSOptions,
} from './speech/tts-failover.ts';
export { reasonOf, type SpeechQuality, type SpeechSwitch } from './speech/speech-switch.ts';
export {
  createDeepgramSTT,
  DEEPGRAM_DEFAULT_BASE_URL,
  DEEPGRAM_DEFAULT_MODEL,
  type DeepgramSTTOptions,
} from './speech/stt-deepgram.ts';
export {
  createOpenAITTS,
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_DEFAULT_TTS_MODEL,
  OPENAI_VOICES,
  type OpenAITTSOptions,
} from './speech/tts-openai.ts';
export { createOpenAISTT, OPENAI_DEFAULT_STT_MODEL, type OpenAISTTOptions } from './speech/stt-openai.ts';
