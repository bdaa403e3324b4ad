import type { ToolSpec } from '../providers/index.ts';

// How a conversation ends. The agent's end-call reasons become values of the `end_call` tool's
// `reason`; so do two fixed ones for the ordinary ends of a conversation.

export const END_CALL_TOOL = 'end_call';
export const USER_SAID_GOODBYE = 'user said goodbye';
export const CONVERSATION_COMPLETE = 'conversation complete';

export type ClosingMode = 'static' | 'prompt' | 'none';

export interface EndReason {
  reason: string;
  closingMode: ClosingMode;
  closingMessage: string;
}

export interface AgentEndingConfig {
  end_call_reasons?: string[];
  end_call_reasons_v2?: { reason: string; closing_message_mode?: ClosingMode; closing_message?: string }[];
}

/** Said after the deprecated `end_call_reasons`, which carry no closing message of their own. */
export const DEFAULT_CLOSING = 'Thank you for your time. Goodbye!';

/** `end_call_reasons_v2` wins when present (even empty); else the deprecated list. */
export function endReasons(agent: AgentEndingConfig): EndReason[] {
  if (agent.end_call_reasons_v2 !== undefined) {
    return agent.end_call_reasons_v2.map((r) => ({
      reason: r.reason,
      closingMode: r.closing_message_mode ?? (r.closing_message ? 'static' : 'none'),
      closingMessage: r.closing_message ?? '',
    }));
  }
  return (agent.end_call_reasons ?? []).map((reason) => ({
    reason,
    closingMode: 'static',
    closingMessage: DEFAULT_CLOSING,
  }));
}

export function endCallToolSpec(reasons: readonly EndReason[]): ToolSpec {
  return {
    name: END_CALL_TOOL,
    description:
      'End the conversation. Call it when one of the listed reasons applies: when the user says ' +
      `goodbye ("${USER_SAID_GOODBYE}"), when the conversation has reached its goal ` +
      `("${CONVERSATION_COMPLETE}"), or when one of the other reasons is met.`,
    parameters: {
      type: 'object',
      properties: {
        reason: {
          type: 'string',
          enum: [...reasons.map((r) => r.reason), USER_SAID_GOODBYE, CONVERSATION_COMPLETE],
          description: 'Why the conversation ends.',
        },
      },
      required: ['reason'],
      additionalProperties: false,
    },
  };
}

/** How the engine records an end (the call layer maps it to `end_call_reason`). */
export type Ending =
  | { kind: 'human_goodbye' }
  | { kind: 'agent_goodbye' }
  | { kind: 'custom_end_call'; customReason: string }
  | { kind: 'max_turns' };

const GOODBYE =
  /^(?:ok(?:ay)?[,.!\s]*)?(?:thanks?(?: you)?[,.!\s]*)?(?:bye(?:[- ]bye)?|good ?bye|see you|talk (?:to you )?later|have a (?:nice|good|great) (?:day|one|evening))[.!\s]*(?:thanks?(?: you)?[.!\s]*)?$/i;

/** A message that is only a farewell ("bye", "thanks, goodbye!", "have a nice day"). */
export function isPlainGoodbye(text: string): boolean {
  return GOODBYE.test(text.trim());
}
