import { customActionForAttachment, placeholderNames } from '../../actions/index.ts';
import { toIso } from '../../core/index.ts';
import {
  fullMapping,
  type Action,
  type ActionAgent,
  type ActionKind,
  type Attachment,
} from '../../store/index.ts';

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
  CUSTOM_EVAL: 'custom_eval_action_type',
};

/** An action as every read shows it: Parley's fields and the published ones. */
export function presentAction(action: Action) {
  // Every kind's configuration is a JSON object; its keys are shown as stored.
  const config: Readonly<Record<string, unknown>> = action.config;
  const { name: _name, description: _description, ...hardCoded } = config;
  return {
    action_id: action.id,
    kind: action.kind,
    action_type: ACTION_TYPES[action.kind],
    name: action.name,
    description: descriptionOf(action),
    config: action.config,
    parameters_hard_coded: {
      ...hardCoded,
      ...(action.kind === 'SEND_SMS' ? { sms_message_text: action.config.content } : {}),
      ...(action.kind === 'INCALL_SMS' ? { sms_message_text: action.config.message_body ?? '' } : {}),
    },
    input_variables: { values: publishedValues(action) },
    created_at: toIso(action.createdAt),
    updated_at: toIso(action.updatedAt),
  };
}

/**
 * `GET /actions/{id}`: the action, and the published one-element `actions` array of it. With
 * `include_assistants`, `agents` (the agents it is attached to) add `assistants` (their ids) and
 * `input_variables.assistants` (each with its settings).
 */
export function presentActionDetail(action: Action, agents: ActionAgent[] | null) {
  const plain = presentAction(action);
  const read = agents === null ? plain : { ...plain, ...assistantsOf(plain.input_variables, agents) };
  return { ...read, actions: [read] };
}

function assistantsOf<V extends { values: unknown[] }>(inputVariables: V, agents: ActionAgent[]) {
  return {
    assistants: agents.map((a) => a.agentId),
    input_variables: {
      ...inputVariables,
      assistants: agents.map(({ agentId, attachment }) => ({
        model_id: agentId,
        attachment_type: attachment.attachmentType,
        trigger_condition: attachment.triggerCondition,
        input_variables_mapping: attachment.inputVariablesMapping.map(fullMapping),
      })),
    },
  };
}

/**
 * The published `description`: the kind's description, else its instructions, else (an
 * evaluation) its question's text, else ''.
 */
function descriptionOf(action: Action): string {
  const c: Readonly<Record<string, unknown>> = action.config;
  const question = c.question !== null && typeof c.question === 'object' ? c.question : {};
  return str(c.description) || str(c.instructions) || ('text' in question ? str(question.text) : '');
}

/** The published value types: string, integer, number, boolean. */
const PUBLISHED_TYPES: Record<string, 'string' | 'integer' | 'number' | 'boolean'> = {
  yes_no: 'boolean',
  int: 'integer',
  integer: 'integer',
  float: 'number',
  number: 'number',
  money: 'number',
  bool: 'boolean',
  boolean: 'boolean',
};

/** `input_variables.values` of an action read, in the published types. */
function publishedValues(action: Action) {
  const vars = inputVariablesOf(action)?.values ?? [];
  // An extractor's type follows its kind; a custom action's is the variable's own type.
  const typeOf = (v: InputVariableValue) =>
    action.kind === 'INFORMATION_EXTRACTOR' ? action.config.kind : v.type;
  return vars.map((v) => ({
    name: v.name,
    type: PUBLISHED_TYPES[typeOf(v).toLowerCase()] ?? 'string',
    description: v.description,
    example: v.example,
  }));
}

/** The items of a list of objects (anything else is skipped), with their string fields. */
function keyed(value: unknown): Record<string, string>[] {
  if (!Array.isArray(value)) return [];
  return value.map((item: unknown) => {
    const out: Record<string, string> = {};
    if (item !== null && typeof item === 'object') {
      for (const [k, v] of Object.entries(item)) if (typeof v === 'string') out[k] = v;
    }
    return out;
  });
}

/**
 * The variables an action's templates use that the conversation must provide (the create
 * response's `prompt_variables`): placeholders of its texts, without the ones it fills itself
 * (a custom action's `variables_during_the_call` and `variables_before_the_call`).
 */
export function promptVariablesOf(action: Action): string[] {
  const texts: string[] = [];
  const own = new Set<string>();
  switch (action.kind) {
    case 'CUSTOM_ACTION': {
      const c = action.config;
      texts.push(c.url, c.json_body_stringified ?? '');
      for (const list of [c.headers, c.query_parameters, c.variables_before_the_call]) {
        for (const kv of keyed(list)) texts.push(kv.key ?? '', kv.value ?? '');
      }
      if (c.query_parameters !== null && typeof c.query_parameters === 'object') {
        if (!Array.isArray(c.query_parameters)) {
          for (const [k, v] of Object.entries(c.query_parameters)) texts.push(k, str(v));
        }
      }
      if (c.custom_auth !== null && typeof c.custom_auth === 'object' && 'value' in c.custom_auth) {
        texts.push(str(c.custom_auth.value));
      }
      for (const v of keyed(c.variables_during_the_call)) if (v.name) own.add(v.name);
      for (const v of keyed(c.variables_before_the_call)) if (v.key) own.add(v.key);
      break;
    }
    case 'SEND_SMS':
      texts.push(action.config.content);
      break;
    case 'INCALL_SMS':
    case 'INCALL_WHATSAPP':
      texts.push(action.config.message_body ?? '', ...Object.values(action.config.content_variables ?? {}));
      break;
    default:
      break;
  }
  return placeholderNames(...texts).filter((name) => !own.has(name));
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
  if (action.kind === 'INFORMATION_EXTRACTOR') {
    const c = action.config;
    return {
      action_id: action.id,
      values: [
        {
          name: c.identifier,
          type: EXTRACTOR_TYPES[c.kind] ?? 'string',
          description: c.description,
          example: c.examples?.[0] ?? '',
          required: true,
        },
      ],
      trigger_condition: c.description,
    };
  }
  if (action.kind === 'CUSTOM_ACTION') {
    const c = action.config;
    const vars = c.variables_during_the_call ?? [];
    if (vars.length === 0) return null;
    return {
      action_id: action.id,
      values: vars.map((v) => ({
        name: v.name,
        type: v.type || 'string',
        description: v.description ?? '',
        example: v.example ?? '',
        required: true,
      })),
      trigger_condition: c.description ?? null,
    };
  }
  return null;
}

/**
 * An attached action's input variables for its agent: a custom action's with the attachment's
 * variable mapping applied (hardcoded values are not asked for); the attachment's trigger
 * condition, when set, replaces the action's own.
 */
function attachedInputVariables(action: Action & { attachment?: Attachment }): InputVariables | null {
  const attachment = action.attachment;
  if (!attachment) return inputVariablesOf(action);
  const effective: Action =
    action.kind === 'CUSTOM_ACTION'
      ? { ...action, config: customActionForAttachment(action.config, attachment) }
      : action;
  const vars = inputVariablesOf(effective);
  if (!vars || attachment.triggerCondition === null) return vars;
  return { ...vars, trigger_condition: attachment.triggerCondition };
}

/** What an agent read shows of its attached actions (include_actions=true). */
export function agentActionFields(actions: readonly (Action & { attachment?: Attachment })[]) {
  return {
    actions: actions.map((a) => a.id),
    input_variables: actions.map(attachedInputVariables).filter((v): v is InputVariables => v !== null),
  };
}
