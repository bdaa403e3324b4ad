import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { runBeforeCall, sanitizeToolName, type CustomActionConfig } from '../../actions/index.ts';
import { invalidInput, notFound, toVariableMap, type HttpPort } from '../../core/index.ts';
import {
  ACTION_KINDS,
  type Action,
  type ActionKind,
  type InputVariableMapping,
  type NewAttachment,
  type Repositories,
  type Store,
} from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { checkConfig, kindBody, mergeConfig, nameOf, normalizeConfig } from './normalize.ts';
import {
  ACTION_TYPES,
  fullMapping,
  presentAction,
  presentActionDetail,
  promptVariablesOf,
} from './present.ts';
import {
  ActionDetail,
  ActionIdParams,
  ActionPage,
  AttachActionsBody,
  CreateActionBody,
  CreatedAction,
  DeletedAction,
  DetachActionsBody,
  GetActionQuery,
  InitializeActionBody,
  InitializedAction,
  ListActionsQuery,
  UpdateActionBody,
} from './schemas.ts';

const TAG = ['Actions'];

const actionNotFound = (id: string, status: 400 | 404 = 404) => notFound(`action ${id} not found`, status);

/** The kind keys present in a create or update body. */
function kindsIn(body: UpdateActionBody): ActionKind[] {
  return ACTION_KINDS.filter((k) => body[k] !== undefined);
}

/** Checks that the agent and every action are the workspace's; 404 naming what is missing. */
async function agentAndActions(repos: Repositories, ws: string, agentId: string, ids: string[]) {
  const agent = await repos.agents.get(ws, agentId);
  if (!agent) throw notFound(`agent ${agentId} not found`);
  const found = await repos.actions.findByIds(ws, ids);
  const missing = [...new Set(ids)].filter((id) => !found.some((a) => a.id === id));
  if (missing.length > 0) throw notFound(`action ${missing.join(', ')} not found`);
  return agent;
}

const AttachResponse = okEnvelope(
  Type.Object({ model_id: Type.String(), actions: Type.Array(Type.String()) }),
);

type AttachItem = NonNullable<AttachActionsBody['items']>[number];

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
    const own = new Set(
      (Array.isArray(action.config.variables_during_the_call)
        ? (action.config.variables_during_the_call as { name?: unknown }[])
        : []
      ).map((v) => v.name),
    );
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

/** The attachments an attach body asks for (`actions` ids, then `items`); checked against the store. */
async function attachmentsOf(
  repos: Repositories,
  ws: string,
  body: AttachActionsBody,
): Promise<(string | NewAttachment)[]> {
  const plain = body.actions ?? [];
  const items = body.items ?? [];
  if (plain.length + items.length === 0) {
    throw invalidInput('body.actions (or body.items) must name at least one action', ['body', 'actions']);
  }
  const ids = itemIds(items);
  const agent = await repos.agents.get(ws, body.model_id);
  if (!agent) throw notFound(`agent ${body.model_id} not found`);
  const found = new Map((await repos.actions.findByIds(ws, [...plain, ...ids])).map((a) => [a.id, a]));
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

export const actionRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** The outbound HTTP of conversations' actions (`initialize` runs a custom action's request). */
  http: HttpPort;
}> = async (app, { store, http }) => {
  app.get(
    '/actions',
    {
      schema: {
        tags: TAG,
        summary: 'List actions, newest first',
        querystring: ListActionsQuery,
        response: { 200: okEnvelope(ActionPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const page = await store.actions.list(request.workspace.id, limit, offset);
      return ok({
        pagination: { total_records: page.total, limit, offset },
        actions: page.items.map(presentAction),
      });
    },
  );

  app.post(
    '/actions',
    {
      schema: {
        tags: TAG,
        summary: 'Create an action (the body has exactly one kind key)',
        body: CreateActionBody,
        response: { 200: okEnvelope(CreatedAction), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const body = request.body;
      const parts = ACTION_KINDS.flatMap((k) => kindBody(body, k) ?? []);
      const [given] = parts;
      if (parts.length !== 1 || given === undefined) {
        const found = parts.map((p) => p.kind).sort();
        throw invalidInput(
          `body must contain exactly one of ${ACTION_KINDS.join(', ')} (found ${found.length === 0 ? 'none' : found.join(', ')})`,
          ['body'],
          'one_kind',
        );
      }
      const kind = given.kind;
      const config = mergeConfig({}, normalizeConfig(given, 'create'));
      checkConfig(kind, config);
      const action = await store.actions.create(request.workspace.id, {
        kind,
        name: nameOf(kind, config),
        config,
      });
      return ok({
        action_id: action.id,
        action_type: ACTION_TYPES[kind],
        prompt_variables: promptVariablesOf(action),
      });
    },
  );

  app.get(
    '/actions/:action_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get an action',
        params: ActionIdParams,
        querystring: GetActionQuery,
        response: { 200: okEnvelope(ActionDetail), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const action = await store.actions.get(ws, request.params.action_id);
      if (!action) throw actionNotFound(request.params.action_id);
      const agents = request.query.include_assistants
        ? await store.actions.agentsOfAction(ws, action.id)
        : null;
      return ok(presentActionDetail(action, agents));
    },
  );

  app.put(
    '/actions/:action_id',
    {
      schema: {
        tags: TAG,
        summary: 'Update an action (its own kind key; fields are merged)',
        params: ActionIdParams,
        body: UpdateActionBody,
        response: { 200: okEnvelope(Type.Object({ action_id: Type.String() })), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.action_id;
      const body = request.body;
      const updated: Action = await store.transaction(async (repos) => {
        // The specification lists only 400 for this operation: unknown is a 400 not_found.
        const current = await repos.actions.get(ws, id);
        if (!current) throw actionNotFound(id, 400);
        const other = kindsIn(body).find((k) => k !== current.kind);
        if (other !== undefined) {
          throw invalidInput(
            `body.${other} is not accepted: action ${id} is a ${current.kind} action`,
            ['body', other],
            'not_accepted',
          );
        }
        const given = kindBody(body, current.kind);
        if (given === undefined) {
          throw invalidInput(
            `body.${current.kind} is required (the action's kind)`,
            ['body', current.kind],
            'missing',
          );
        }
        const config = mergeConfig(current.config, normalizeConfig(given, 'update'), current.kind);
        checkConfig(current.kind, config);
        const next = await repos.actions.update(ws, id, { name: nameOf(current.kind, config), config });
        if (!next) throw actionNotFound(id, 400);
        return next;
      });
      return ok({ action_id: updated.id });
    },
  );

  app.delete(
    '/actions/:action_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete an action (detaching it from every agent)',
        params: ActionIdParams,
        response: { 200: okEnvelope(DeletedAction), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.action_id;
      const deleted = await store.transaction((repos) => repos.actions.delete(request.workspace.id, id));
      if (!deleted) throw actionNotFound(id);
      return ok({ action_id: id, answer: 'ok' });
    },
  );

  app.post(
    '/actions/attach',
    {
      schema: {
        tags: TAG,
        summary: 'Attach actions to an agent (all or none), by id or with per-agent settings (items)',
        body: AttachActionsBody,
        response: { 200: AttachResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { model_id } = request.body;
      const attached = await store.transaction(async (repos) => {
        const attachments = await attachmentsOf(repos, ws, request.body);
        await repos.actions.attach(ws, model_id, attachments);
        return (await repos.actions.attachedTo(ws, [model_id])).get(model_id) ?? [];
      });
      return ok({ model_id, actions: attached.map((a) => a.id) });
    },
  );

  app.post(
    '/actions/detach',
    {
      schema: {
        tags: TAG,
        summary: 'Detach actions from an agent (all or none)',
        body: DetachActionsBody,
        response: { 200: AttachResponse, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { model_id, actions } = request.body;
      const attached = await store.transaction(async (repos) => {
        const agent = await agentAndActions(repos, ws, model_id, actions);
        await repos.actions.detach(ws, agent.id, actions);
        return (await repos.actions.attachedTo(ws, [agent.id])).get(agent.id) ?? [];
      });
      return ok({ model_id, actions: attached.map((a) => a.id) });
    },
  );

  app.post(
    '/actions/initialize',
    {
      schema: {
        tags: TAG,
        summary: "Run a custom action's request once with the given variables and answer the result",
        body: InitializeActionBody,
        response: { 200: okEnvelope(InitializedAction), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { action_id, variables } = request.body;
      const action = await store.actions.get(request.workspace.id, action_id);
      if (!action) throw actionNotFound(action_id);
      if (action.kind !== 'CUSTOM_ACTION') {
        throw invalidInput(
          `body.action_id: action ${action_id} is a ${action.kind}; only a CUSTOM_ACTION can be initialized`,
          ['body', 'action_id'],
        );
      }
      const config = action.config as unknown as CustomActionConfig;
      // As a pre-call run: the variables fill the placeholders and the action's own variables.
      const run = await runBeforeCall(config, { http, variables: toVariableMap(variables), action_id });
      const status = typeof run.result.status === 'number' ? run.result.status : null;
      return ok({
        answer: run.ok
          ? String(run.variables[`${sanitizeToolName(config.name)}_result`] ?? '')
          : (run.error ?? ''),
        ok: run.ok,
        status,
        error: run.error,
      });
    },
  );
};
