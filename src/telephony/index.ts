// Carriers behind one `Carrier` port (DESIGN.md section 2): `sim` now; `sip` and `ws` later.
export type {
  AnsweredBy,
  CallLeg,
  Callee,
  CalleeContext,
  CalleeFactory,
  CalleeTurn,
  Carrier,
  DialOutcome,
  DialRequest,
  IncomingRequest,
  LegEndReason,
} from './types.ts';
export {
  OUTCOME_BY_SUFFIX,
  createSimCarrier,
  voicemailGreeting,
  type SimCarrier,
  type SimCarrierOptions,
  type SimDialOutcome,
  type SimInboundRequest,
  type SimLeg,
  type SimLogEntry,
} from './sim/index.ts';
