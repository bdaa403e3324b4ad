// Carriers behind one `Carrier` port (DESIGN.md section 2): `sim` now; `sip` and `ws` later.
export type {
  CallLeg,
  Carrier,
  DialOutcome,
  DialRequest,
  IncomingCall,
  IncomingHandler,
  IncomingRejection,
  IncomingTaken,
  LegEndReason,
  TextLeg,
} from './types.ts';
export * from './sim/index.ts';
export {
  FrameRing,
  createCallerPacer,
  createWorkerPacer,
  type FramePacer,
  type SentBeat,
  type WorkerPacerOptions,
} from './pacing/index.ts';
export * from './ws/index.ts';
export * from './rtp/index.ts';
export * from './sip/index.ts';
export * from './twilio/index.ts';
// Bridging a call Parley hands to a person itself (a warm transfer): pure audio, re-exported for
// the call lifecycle.
export {
  TransferRefusedError,
  createLegFloor,
  holdMusic,
  relayTo,
  type LegFloor,
  type Relay,
} from '../media/index.ts';
