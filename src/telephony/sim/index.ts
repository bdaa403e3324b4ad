// The simulated carrier `sim` (DESIGN.md section 4).
export {
  OUTCOME_BY_SUFFIX,
  createSimCarrier,
  type AnySimLeg,
  type SimCarrier,
  type SimCarrierOptions,
  type SimDialOutcome,
  type SimInboundRequest,
} from './carrier.ts';
export { beepFrames } from './far-end-audio.ts';
export { voicemailGreeting } from './far-end.ts';
export type { SimAudioLeg } from './audio-leg.ts';
export type { SimLeg, SimLogEntry } from './text-leg.ts';
export type { Callee, CalleeContext, CalleeFactory, CalleeTurn, FarEndVoice } from './types.ts';
export {
  MACHINE_MESSAGE_MS,
  MAX_SPEAK_MS,
  NO_ANSWER_MS,
  RING_MS,
  SPEAK_MS_PER_CHAR,
  THINK_MS,
  speakingMs,
} from './timing.ts';
