// The call lifecycle (DESIGN.md sections 2 and 4): statuses, running calls on a carrier, records.
export {
  CALL_STATUSES,
  END_CALL_REASONS,
  FINAL_STATUSES,
  canMove,
  defaultEndReason,
  isCallStatus,
  isFinal,
  movesInto,
  type CallStatus,
  type EndCallReason,
} from './status.ts';
export { agentVersionOf, agentsUsed, callTimezone, postCallPayload } from './payload.ts';
export {
  DEFAULT_CALL_SECONDS,
  newCallOf,
  type PlaceCallInput,
  type ResolvedPlaceCallInput,
} from './admission.ts';
export type { SpeechChoice } from './context.ts';
export type { CallRecordings } from './recording.ts';
export { recordingUrlOf } from './payload.ts';
export { createCallService, type CallService, type CallServiceOptions } from './service.ts';
export { NODE_DEAD_AFTER_MS } from './liveness.ts';
export { createHeadroom, type Headroom, type HeadroomOptions } from './headroom.ts';
export { createWebCalls, type WebCallStart, type WebCallStarted, type WebCalls } from './web-calls.ts';
export { legCallControl, type CallControlDeps, type LegCallControl } from './call-control.ts';
export {
  WEB_CALL_NUMBER,
  chooseOrigin,
  type Origin,
  type OriginDoor,
  type OriginRequest,
  type VersionChoice,
} from './origin.ts';
