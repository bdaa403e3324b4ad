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
  LegEndReason,
} from './types.ts';
