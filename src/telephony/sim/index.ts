// The simulated carrier `sim` (DESIGN.md section 4).
export {
  OUTCOME_BY_SUFFIX,
  createSimCarrier,
  type SimCarrier,
  type SimCarrierOptions,
  type SimDialOutcome,
  type SimInboundRequest,
} from './carrier.ts';
export { voicemailGreeting } from './far-end.ts';
export type { SimLeg, SimLogEntry } from './leg.ts';
export {
  MACHINE_MESSAGE_MS,
  MAX_SPEAK_MS,
  NO_ANSWER_MS,
  RING_MS,
  SPEAK_MS_PER_CHAR,
  THINK_MS,
  speakingMs,
} from './timing.ts';
