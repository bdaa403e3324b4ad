export { createStore, type Store, type Repositories, type StoreLimits } from './store.ts';
export type { DatabaseOptions, DialectName, Signals } from './database.ts';
export { ACTION_KINDS } from './records.ts';
export type {
  Action,
  ActionKind,
  ActionOf,
  Agent,
  AgentSpec,
  ApiKey,
  Chat,
  ChatStatus,
  Page,
  PhoneNumber,
  Workspace,
} from './records.ts';
export {
  ATTACHMENT_TYPES,
  type ActionAgent,
  type ActionPatch,
  type AttachedAction,
  type Attachment,
  type AttachmentType,
  type InputVariableMapping,
  fullMapping,
  type NewAction,
  type NewAttachment,
} from './actions.ts';
export type {
  AgentVersion,
  AgentVersionSummary,
  AgentVersionsRepo,
  RestoreResult,
} from './agent-versions.ts';
export type { AgentSnapshot, SnapshotKnowledgeBase } from './agent-snapshot.ts';
export type { CalendarBooking, CalendarRepo, CalendarWorkingHours, NewCalendarBooking } from './calendar.ts';
export type { ChatList, ChatListOptions, NewChat } from './chats.ts';
export {
  searchTerms,
  type KnowledgeBase,
  type KnowledgeBasePatch,
  type KnowledgeHit,
  type KnowledgeRepo,
  type KnowledgeSource,
  type KnowledgeSourceStatus,
  type KnowledgeSourceType,
  type NewKnowledgeBase,
  type NewKnowledgeSource,
} from './knowledge.ts';
export type { NewWorkspace, WorkspacePatch } from './workspaces.ts';
export type { NodeAbout, NodeInfo } from './nodes.ts';
export type { WsMediaSessionRecord } from './ws-media-sessions.ts';
export type { SipRegistrationRecord, SipRegistrationStateName } from './sip-registrations.ts';
export type { TwilioAccountRecord, TwilioNumberHolder } from './twilio-accounts.ts';
export type { SpeechProviderRecord } from './speech-providers.ts';
export { newWebhookSecret } from './workspaces.ts';
export {
  MAX_LOG_BODY_BYTES,
  WEBHOOK_STATUSES,
  WEBHOOK_TYPES,
  httpMethodOfLog,
  type AttemptOutcome,
  type ClaimedWebhookDelivery,
  type NewWebhookDelivery,
  type NewWebhookLog,
  type RecordedAttempt,
  type WebhookDelivery,
  type WebhookLog,
  type WebhookLogFilter,
  type WebhooksRepo,
  type WebhookStatus,
  type WebhookType,
} from './webhooks.ts';
export { generateApiKey, hashApiKey, type CreatedApiKey } from './api-keys.ts';
export { bootstrapWorkspace, DEFAULT_MAX_CONCURRENT_CALLS, type BootstrapResult } from './bootstrap.ts';
export type { Call, CallFilters, CallMove, CallPatch, NewCall } from './calls/types.ts';
export type { CallsRepo } from './calls/repo.ts';
export { parseCallSettings, type CallSettings } from './calls/settings.ts';
export type { CallTurn, CallTurnsRepo, CallTurnsWrite } from './call-turns.ts';
export {
  MAX_TASKS_PER_BATCH,
  type AppendResult,
  type Batch,
  type BatchStatus,
  type BatchTask,
  type BatchTaskWithCall,
  type NewBatch,
  type NewTask,
  type TaskStatus,
} from './batches/types.ts';
export { DispatchRefused } from './batches/dispatch.ts';
export type { BatchesRepo } from './batches/repo.ts';
export {
  CALL_SUCCESS_TYPES,
  SIMULATION_CASE_TYPES,
  type CallSuccessType,
  type NewSimulationCase,
  type NewSimulationSuite,
  type SimulationCase,
  type SimulationCaseListOptions,
  type SimulationCasePatch,
  type SimulationCaseType,
  type SimulationSuite,
  type SimulationSuiteListOptions,
  type SimulationSuitePatch,
  type SimulationsRepo,
} from './simulations.ts';
export type {
  CriterionVerdict,
  SimulationRun,
  SimulationRunStatus,
  SimulationRunsRepo,
  SimulationSession,
} from './simulation-runs.ts';
export type {
  Contact,
  ContactListOptions,
  ContactMetadata,
  ContactPatch,
  ContactSearch,
  ContactsRepo,
  NewContact,
} from './contacts.ts';
export {
  RECENT_CALLS,
  type ActionGroup,
  type AgentGroup,
  type AnalyticsData,
  type AnalyticsFilter,
  type AnalyticsRepo,
  type CallGroup,
  type RecentCall,
} from './analytics.ts';
export { buildCallReport } from './analytics/fold.ts';
export type { CallReport, DayCounts, SeriesKeys } from './analytics/report.ts';
export {
  createFileRecordings,
  isRecordingKey,
  type RecordingStorage,
  type RecordingWriter,
  type StoredRecording,
} from './recordings.ts';
export { readSipTrunk, type SipTransportSetting, type SipTrunk } from './sip-trunk.ts';
