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
