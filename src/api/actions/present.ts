import { toIso } from '../../core/index.ts';
import type { Action, ActionKind } from '../../store/index.ts';

// How actions read on the wire, and what an agent read shows of its attached actions.

/**
 * `action_type` of each kind. The specification shows the first two; the others are the kind in
 * lower case followed by `_action_type`, except the custom action's `custom_action_type` (the value
 * its run records carry, see src/actions).
 */
export const ACTION_TYPES: Record<ActionKind, string> = {
  INFORMATION_EXTRACTOR: 'extract_info_action_type',
  LIVE_TRANSFER: 'transfer_call_action_type',
  REAL_TIME_BOOKING: 'real_time_booking_action_type',
  SEND_SMS: 'send_sms_action_type',
  INCALL_SMS: 'incall_sms_action_type',
  INCALL_WHATSAPP: 'incall_whatsapp_action_type',
  CUSTOM_ACTION: 'custom_action_type',
};

export function presentAction(action: Action) {
  return {
    action_id: action.id,
    kind: action.kind,
    action_type: ACTION_TYPES[action.kind],
    name: action.name,
    config: action.config,
    created_at: toIso(action.createdAt),
    updated_at: toIso(action.updatedAt),
  };
}

export interface InputVariableValue {
  name: string;
  type: string;
  description: string;
  example: string;
  required: boolean;
}

export interface InputVariables {
  action_id: string;
  values: InputVariableValue[];
  trigger_condition: string | null;
}

const EXTRACTOR_TYPES: Record<string, string> = {
  open_question: 'string',
  yes_no: 'boolean',
  single_choice: 'enum',
};

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The variables an action collects during the call: an information extractor's one value, a
 * custom action's `variables_during_the_call`; null for kinds that collect none (or a custom
 * action without variables).
 */
export function inputVariablesOf(action: Action): InputVariables | null {
  const c = action.config;
  if (action.kind === 'INFORMATION_EXTRACTOR') {
    const examples = Array.isArray(c.examples) ? (c.examples as unknown[]) : [];
    return {
      action_id: action.id,
      values: [
        {
          name: str(c.identifier),
          type: EXTRACTOR_TYPES[str(c.kind)] ?? 'string',
          description: str(c.description),
          example: str(examples[0]),
          required: true,
        },
      ],
      trigger_condition: str(c.description),
    };
  }
  if (action.kind === 'CUSTOM_ACTION') {
    const vars = Array.isArray(c.variables_during_the_call)
      ? (c.variables_during_the_call as Record<string, unknown>[])
      : [];
    if (vars.length === 0) return null;
    return {
      action_id: action.id,
      values: vars.map((v) => ({
        name: str(v.name),
        type: str(v.type) || 'string',
        description: str(v.description),
        example: str(v.example),
        required: true,
      })),
      trigger_condition: typeof c.description === 'string' ? c.description : null,
    };
  }
  return null;
}

/** What an agent read shows of its attached actions (include_actions=true). */
export function agentActionFields(actions: Action[]) {
  return {
    actions: actions.map((a) => a.id),
    input_variables: actions.map(inputVariablesOf).filter((v): v is InputVariables => v !== null),
  };
}
