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
  customActionForAttachment,
  type CustomActionAttachment,
  type VariableMapping,
} from './attachment.ts';
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
} from '../core/index.ts';
export {
  fillJsonBody,
  fillText,
  fillUrl,
  isJsonBodyTemplate,
  placeholderNames,
  type TemplateValues,
} from './template.ts';
export {
  TRANSFER_FAILED_REASONS,
  chatCallControl,
  type Attendee,
  type BookingResult,
  type CalendarPort,
  type CallControlPort,
  type MessagingChannel,
  type MessagingPort,
  type OutboundMessage,
  type ReplyPort,
  type ReplyQuery,
  type TimeRange,
  type TransferFailedReason,
  type TransferMode,
  type TransferResult,
} from './ports.ts';
export {
  DEFAULT_BOOKING_DAYS,
  DEFAULT_BOOKING_MIN_HOURS,
  DEFAULT_BOOKING_SLOTS,
  REAL_TIME_BOOKING_ACTION_TYPE,
  createRealTimeBookingTools,
  type RealTimeBookingConfig,
  type RealTimeBookingDeps,
  type RealTimeBookingTools,
} from './booking.ts';
export {
  createBuiltinCalendar,
  type BuiltinCalendarOptions,
  type BuiltinCalendarRepo,
  type WorkingHours,
} from './calendar-builtin.ts';
export {
  DEFAULT_REPLY_TIMEOUT_SECONDS,
  INCALL_SMS_ACTION_TYPE,
  INCALL_WHATSAPP_ACTION_TYPE,
  SEND_SMS_ACTION_TYPE,
  createInCallSmsTool,
  createInCallWhatsAppTool,
  sendAfterConversation,
  type InCallMessageConfig,
  type InCallMessageDeps,
  type MessageRun,
  type MessagingActionDeps,
  type SendSmsConfig,
} from './messaging.ts';
export {
  DEFAULT_TRANSFER_TIMEOUT_SECONDS,
  TRANSFER_ACTION_TYPE,
  WEEKDAY_NAMES,
  createLiveTransferTool,
  isHumanAvailable,
  type HumanAvailability,
  type LiveTransferConfig,
  type LiveTransferDeps,
  type LiveTransferTool,
  type WeekdayName,
} from './transfer.ts';
export {
  CUSTOM_EVAL_ACTION_TYPE,
  DEFAULT_EVAL_CATEGORY,
  EVALUATION_TOOL,
  EVAL_CATEGORIES,
  evaluationPrompt,
  evaluationToolSpec,
  evaluationValue,
  heuristicVerdict,
  parseCustomEvalQuestion,
  parseVerdict,
  startEvaluation,
  type CustomEvalQuestion,
  type EvalCategory,
  type EvalResult,
  type EvalVerdict,
} from './evaluation.ts';
