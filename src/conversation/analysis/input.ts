import type { CollectedVariable } from '../../actions/index.ts';
import type { Clock } from '../../core/index.ts';
import type { LLM } from '../../providers/index.ts';
import type { TranscriptTurn } from '../transcript.ts';
import type { AgentConversationConfig } from '../session.ts';

// What the analysis reads: a finished conversation as the call (or chat) layer has it.

/** An action run of the call, as `executed_actions` records it (the latest run of each). */
export interface AnalyzedAction {
  name: string;
  action_type: string;
  success: boolean;
  error_message?: string | null;
}

export interface AnalysisInput {
  /** The agent as configured: prompt (placeholders filled), greeting, end-call reasons. */
  agent: Pick<
    AgentConversationConfig,
    'prompt' | 'greeting_message' | 'end_call_reasons' | 'end_call_reasons_v2'
  >;
  turns: readonly Pick<TranscriptTurn, 'speaker' | 'text'>[];
  /** The spec's `end_call_reason` (`agent_goodbye`, `voicemail`...); null when none was recorded. */
  endCallReason: string | null;
  /** The condition that ended the call, when `endCallReason` is `custom_end_call`. */
  customEndCallReason?: string | null;
  /** Who picked up; null when unknown (chats, or detection off). */
  answeredBy: 'human' | 'machine' | null;
  /** `collected_variables` of the payload. */
  collectedVariables?: Record<string, CollectedVariable> | null;
  actions?: readonly AnalyzedAction[];
  /** Knowledge passages retrieved for the agent during the conversation. */
  knowledgePassages?: readonly string[];
}

export interface AnalysisDeps {
  /** The judge; the builtin (or none) means the deterministic heuristic. */
  llm?: LLM | null;
  model?: string;
  clock?: Clock;
  signal?: AbortSignal;
}
