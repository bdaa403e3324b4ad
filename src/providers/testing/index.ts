// Fakes of the provider seams, for tests of the modules that use them.
export { createScriptedLLM, type ScriptedLLM, type ScriptedReply, type ScriptStep } from './scripted-llm.ts';
export { runLLMContract, type LLMContractSubject, type LLMContractOptions } from './llm-contract.ts';
export { runMessagingContract } from './messaging-contract.ts';
export {
  createDataSpeechReader,
  createFakeSTT,
  createFakeTTS,
  createFakeVAD,
  dataSpeechFrames,
  type FakeSTTOptions,
  type FakeTTSOptions,
  type FakeVADOptions,
} from './fake-speech.ts';
