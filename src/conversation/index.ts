export {
  ConversationSession,
  ConversationEndedError,
  DEFAULT_MAX_TURNS,
  FALLBACK_REPLY,
  type AgentConversationConfig,
  type ModelCallTiming,
  type SessionOptions,
  type SessionSnapshot,
  type ToolCallRecord,
  type TurnOptions,
  type TurnResult,
} from './session.ts';
export { ToolRegistry, type Tool, type ToolContext, type ToolOutcome } from './tools.ts';
export {
  CONVERSATION_COMPLETE,
  DEFAULT_CLOSING,
  END_CALL_TOOL,
  USER_SAID_GOODBYE,
  endReasons,
  isPlainGoodbye,
  type Ending,
  type EndReason,
} from './endings.ts';
export { fillPlaceholders, systemVariables, type Variables, type VariableValue } from './variables.ts';
export { redactPii } from './redact.ts';
export { formatTranscript, type TranscriptStyle, type TranscriptTurn } from './transcript.ts';
export {
  createSimulatedPerson,
  DEFAULT_PERSON_MAX_TURNS,
  PERSON_FALLBACK,
  type Persona,
  type PersonaValue,
  type PersonRole,
  type PersonTurn,
  type SimulatedPerson,
  type SimulatedPersonOptions,
} from './person.ts';
export { analyzeConversation, JUDGE_ATTEMPTS, type AnalysisResult } from './analysis.ts';
export type { AnalysisDeps, AnalysisInput, AnalyzedAction } from './analysis/input.ts';
export {
  ANALYSIS_FIELDS,
  AnalysisFieldsSchema,
  AnalysisSchema,
  finalizeAnalysis,
  type Analysis,
  type AnalysisField,
  type AnalysisFields,
} from './analysis/schema.ts';
