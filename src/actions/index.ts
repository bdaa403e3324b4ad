// Action kinds as tools the conversation engine can register (DESIGN.md section 2).
export {
  sanitizeToolName,
  type ActionOutcome,
  type ActionTool,
  type ActionToolContext,
  type ActionToolSpec,
  type ActionVariables,
} from './types.ts';
export {
  ActionRecorder,
  type ActionAttempt,
  type ActionRunInfo,
  type AttemptStatus,
  type ExecutedAction,
  type RecorderContext,
  type RecorderSnapshot,
  type TimelineEntry,
} from './recorder.ts';
export {
  CollectedVariables,
  SYSTEM_VARIABLE_NAMES,
  type CollectedValue,
  type CollectedVariable,
} from './variables.ts';
export {
  EXTRACT_INFO_ACTION_TYPE,
  createInformationExtractorTool,
  extractorToolName,
  type ExtractorDeps,
  type ExtractorKind,
  type InformationExtractorConfig,
} from './extractor.ts';
export {
  CUSTOM_ACTION_TYPE,
  DEFAULT_FAILURE_TIMEOUT_SECONDS,
  createCustomActionTool,
  customActionSchema,
  runBeforeCall,
  runCustomAction,
  type BeforeCallResult,
  type CustomActionConfig,
  type CustomActionDeps,
  type CustomActionRun,
  type CustomActionTool,
  type CustomActionVariable,
  type CustomAuth,
  type KeyValue,
} from './custom.ts';
export {
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  OutboundHttpError,
  createSafeFetch,
  isBlockedAddress,
  type HttpPort,
  type HttpRequest,
  type HttpResponse,
  type SafeFetchOptions,
} from './http.ts';
export { fillJsonBody, fillText, fillUrl } from './template.ts';
