// An agent brought to life for one conversation (chats, calls, simulations): model, variables,
// actions as tools with their effects, knowledge, and what runs after the end.
export {
  actionStateOf,
  conversationActions,
  isPreCall,
  presentActions,
  runPreCallActions,
  type ActionEffects,
  type ActionState,
  type ConversationActions,
  type ConversationActionsOptions,
  type ConversationParty,
} from './actions.ts';
export {
  calendarResolver,
  defaultWorkingHours,
  fetchThrough,
  parseCalendarRef,
  type CalendarRef,
  type CalendarRefResult,
  type CalendarResolver,
  type CalendarResolverOptions,
} from './calendar.ts';
export { finalExtraction, finishConversation, runEvaluations, type FinishOptions } from './finish.ts';
export {
  knowledgeBasesOf,
  knowledgeFor,
  ragConditionAllows,
  type AttachedKnowledgeBase,
} from './knowledge.ts';
export { createReplyHub, type InboundText, type ReplyHub } from './replies.ts';
export {
  createAgentRuntime,
  type AgentRuntime,
  type AgentRuntimeOptions,
  type CallEnding,
  type Conversation,
  type ConversationSetup,
} from './runtime.ts';
export { adapterName, createMessagingHub, type MessagingDeps, type MessagingHub } from './messaging.ts';
export { agentOfVersion, prepareRun, prepareRuns, runKey, type AgentRun } from './versions.ts';
export { createConversationServices, type ConversationServices } from './services.ts';
export type {
  CallControlPort,
  TransferFailedReason,
  TransferReport,
  TransferRequest,
  TransferResult,
} from '../actions/index.ts';
