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
export { CALL_FALLBACK_LINE, MAX_DURATION_LINE, converse, type ConverseResult } from './converse.ts';
export { agentsUsed, callTimezone, postCallPayload } from './payload.ts';
export { callQuality, type CallQuality } from './quality.ts';
export {
  DEFAULT_CALL_SECONDS,
  createCallService,
  newCallOf,
  type CallService,
  type CallServiceOptions,
  type PlaceCallInput,
} from './service.ts';
