import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { runBeforeCall, sanitizeToolName } from '../../actions/index.ts';
import type { ActionService, AgentService } from '../../agents/index.ts';
import { invalidInput, notFound, toVariableMap, type HttpPort } from '../../core/index.ts';
import { ACTION_KINDS, type ActionKind, type Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { checkConfig, kindBody, mergeConfig, nameOf, normalizeConfig } from './normalize.ts';
import { ACTION_TYPES, presentAction, presentActionDetail, promptVariablesOf } from './present.ts';
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

const AttachResponse = okEnvelope(
  Type.Object({ model_id: Type.String(), actions: Type.Array(Type.String()) }),
);

export const actionRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Action changes (src/agents). */
  actions: ActionService;
  /** Attaching actions to agents (src/agents). */
  agents: AgentService;
  /** The outbound HTTP of conversations' actions (`initialize` runs a custom action's request). */
  http: HttpPort;
}> = async (app, { store, actions, agents, http }) => {
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
      const id = request.params.action_id;
      const body = request.body;
      const updated = await actions.update(request.workspace.id, id, (current) => {
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
        return { name: nameOf(current.kind, config), config };
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
      await actions.remove(request.workspace.id, id);
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
      const attached = await agents.attachActions(request.workspace.id, request.body);
      return ok({ model_id: request.body.model_id, actions: attached.map((a) => a.id) });
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
      const { model_id, actions: ids } = request.body;
      const attached = await agents.detachActions(request.workspace.id, model_id, ids);
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
      const config = action.config;
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
