import { invalidInput, notFound } from '../core/index.ts';
import {
  type Action,
  type ActionKind,
  type AttachmentType,
  type InputVariableMapping,
  type NewAttachment,
  type Repositories,
  fullMapping,
} from '../store/index.ts';
import { agentNotFound } from './errors.ts';

// What an attach request asks for, checked against the agent and its actions: every action is
// the workspace's, and each item's settings fit its action's kind. The errors name the request's
// fields (`body.items[i]...`), as the API answers them.

/** One action with per-agent settings (`POST /actions/attach`, `items`). */
export interface AttachItem {
  action_id?: string | undefined;
  slug?: string | undefined;
  attachment_type?: AttachmentType | null | undefined;
  trigger_condition?: string | null | undefined;
  input_variables_mapping?: InputVariableMapping[] | undefined;
}

export interface AttachActionsRequest {
  /** The agent. */
  model_id: string;
  /** Action ids, attached with their current (or default) settings. */
  actions?: string[] | undefined;
  items?: AttachItem[] | undefined;
}

/** Kinds that run after the end whatever their attachment says (`after` changes nothing for them). */
const AFTER_KINDS: readonly ActionKind[] = ['SEND_SMS', 'CUSTOM_EVAL'];

/** The action id of each item (its `action_id`, else its `slug`); 400 naming what is wrong. */
function itemIds(items: readonly AttachItem[]): string[] {
  const seen = new Map<string, number>();
  return items.map((item, i) => {
    const id = item.action_id ?? item.slug;
    if (id === undefined) {
      throw invalidInput(
        `body.items[${i}].action_id is required (or slug)`,
        ['body', 'items', i, 'action_id'],
        'missing',
      );
    }
    if (item.action_id !== undefined && item.slug !== undefined && item.slug !== item.action_id) {
      throw invalidInput(`body.items[${i}].slug: give action_id or slug, not two different ones`, [
        'body',
        'items',
        i,
        'slug',
      ]);
    }
    const field = item.action_id !== undefined ? 'action_id' : 'slug';
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      throw invalidInput(
        `body.items[${i}].${field}: action ${id} is also body.items[${earlier}]`,
        ['body', 'items', i, field],
        'duplicate',
      );
    }
    seen.set(id, i);
    return id;
  });
}

/** The names of a custom action's `variables_during_the_call` (none for the other kinds). */
function variableNames(action: Action): unknown[] {
  if (action.kind !== 'CUSTOM_ACTION') return [];
  const variables: unknown = action.config.variables_during_the_call;
  return Array.isArray(variables) ? variables.map((v: { name?: unknown }) => v.name) : [];
}

/**
 * Checks an item against its action's kind and answers what the store keeps of it: `before` is a
 * custom action's, `after` only for the kinds that run after the end anyway, a variable mapping
 * only for a custom action's `variables_during_the_call` (a hardcoded one with its value).
 */
function attachmentOf(item: AttachItem, i: number, action: Action): NewAttachment {
  const at = (...rest: (string | number)[]) => ['body', 'items', i, ...rest];
  const dotted = (...rest: (string | number)[]) =>
    `body.items[${i}]` + rest.map((r) => (typeof r === 'number' ? `[${r}]` : `.${r}`)).join('');
  const type = item.attachment_type ?? undefined;
  if (type === 'before' && action.kind !== 'CUSTOM_ACTION') {
    throw invalidInput(
      `${dotted('attachment_type')}: only a CUSTOM_ACTION runs before the conversation (action ${action.id} is a ${action.kind})`,
      at('attachment_type'),
    );
  }
  if (type === 'after' && !AFTER_KINDS.includes(action.kind)) {
    throw invalidInput(
      `${dotted('attachment_type')}: only ${AFTER_KINDS.join(' and ')} actions run after the end (action ${action.id} is a ${action.kind})`,
      at('attachment_type'),
    );
  }
  const mapping = item.input_variables_mapping;
  let mapped: InputVariableMapping[] | undefined;
  if (mapping !== undefined) {
    if (mapping.length > 0 && action.kind !== 'CUSTOM_ACTION') {
      throw invalidInput(
        `${dotted('input_variables_mapping')}: only a CUSTOM_ACTION's variables can be mapped (action ${action.id} is a ${action.kind})`,
        at('input_variables_mapping'),
      );
    }
    const own = new Set(variableNames(action));
    const named = new Set<string>();
    mapped = mapping.map((m, j) => {
      if (!own.has(m.variable_name) || named.has(m.variable_name)) {
        throw invalidInput(
          named.has(m.variable_name)
            ? `${dotted('input_variables_mapping', j, 'variable_name')}: ${m.variable_name} is mapped twice`
            : `${dotted('input_variables_mapping', j, 'variable_name')}: action ${action.id} has no variable ${m.variable_name} in variables_during_the_call`,
          at('input_variables_mapping', j, 'variable_name'),
        );
      }
      named.add(m.variable_name);
      if (m.source === 'hardcoded' && typeof m.hardcoded_value !== 'string') {
        throw invalidInput(
          `${dotted('input_variables_mapping', j, 'hardcoded_value')} is required when source is hardcoded`,
          at('input_variables_mapping', j, 'hardcoded_value'),
          'missing',
        );
      }
      return fullMapping(m);
    });
  }
  return {
    actionId: action.id,
    ...(type !== undefined ? { attachmentType: type } : {}),
    ...(item.trigger_condition !== undefined ? { triggerCondition: item.trigger_condition } : {}),
    ...(mapped !== undefined ? { inputVariablesMapping: mapped } : {}),
  };
}

/** The attachments an attach request asks for (`actions` ids, then `items`); checked against the store. */
export async function attachmentsOf(
  repos: Repositories,
  workspaceId: string,
  request: AttachActionsRequest,
): Promise<(string | NewAttachment)[]> {
  const plain = request.actions ?? [];
  const items = request.items ?? [];
  if (plain.length + items.length === 0) {
    throw invalidInput('body.actions (or body.items) must name at least one action', ['body', 'actions']);
  }
  const ids = itemIds(items);
  const agent = await repos.agents.get(workspaceId, request.model_id);
  if (!agent) throw agentNotFound(request.model_id, 404);
  const found = new Map(
    (await repos.actions.findByIds(workspaceId, [...plain, ...ids])).map((a) => [a.id, a]),
  );
  // A slug Parley cannot resolve is a bad field, not a missing action: Parley has no slugs.
  items.forEach((item, i) => {
    if (item.action_id === undefined && !found.has(ids[i] ?? '')) {
      throw invalidInput(
        `body.items[${i}].slug: Parley actions have no slugs; a slug is looked up as an action id, and there is no action ${item.slug}`,
        ['body', 'items', i, 'slug'],
        'not_found',
      );
    }
  });
  const missing = [...new Set([...plain, ...ids])].filter((id) => !found.has(id));
  if (missing.length > 0) throw notFound(`action ${missing.join(', ')} not found`);
  return [...plain, ...items.map((item, i) => attachmentOf(item, i, found.get(ids[i] ?? '')!))];
}
