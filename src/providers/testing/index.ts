// Fakes of the provider seams, for tests of the modules that use them.
export {
  createScriptedLLM,
  createToolCallingLLM,
  type ScriptedLLM,
  type ScriptedReply,
  type ScriptStep,
} from './scripted-llm.ts';
export { runLLMContract, type LLMContractSubject, type LLMContractOptions } from './llm-contract.ts';
export { runMessagingContract } from './messaging-contract.ts';
export {
  createDataSpeechReader,
  dataSpeechFrames,
  createFakeSTT,
  createFakeTTS,
  createFakeVAD,
  type FakeSTTOptions,
  type FakeTTSOptions,
  type FakeVADOptions,
} from './fake-speech.ts';
export { runVADContract, type VADContractOptions } from './vad-contract.ts';
export {
  AUDIO_AT0,
  composeScene,
  espeakClip,
  fliteClip,
  framesOf,
  mixAtSnr,
  monoWav,
  powerOf,
  resampleWithSox,
  soxNoise,
  soxSound,
  testAudioDir,
  type Clip,
  type Scene,
} from './vad-audio.ts';
export { runTTSContract, type TTSContractOptions } from './tts-contract.ts';
export { matchedWords, runSTTContract, wordErrorRate, words, type STTContractAudio } from './stt-contract.ts';
export { recognize } from './recognize.ts';
export { createBrokenSTT, createBrokenTTS, type STTBreak, type TTSBreak } from './broken-speech.ts';
