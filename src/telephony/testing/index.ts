// Test helpers for the telephony seam: the carrier contract suite and a scripted far end.
export { runCarrierContract, type CarrierContractSubject, type MakeCarrier } from './contract.ts';
export {
  createScriptedCallee,
  type ScriptedCallee,
  type ScriptedCalleeOptions,
  type ScriptedCalleeTurn,
} from './scripted-callee.ts';
export { createDataEar, createDataVoice } from './data-voice.ts';
export { talkAsCallee } from './leg-far-end.ts';
