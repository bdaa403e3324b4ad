import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, notFound } from '../../core/index.ts';
import {
  ACTION_KINDS,
  type Action,
  type ActionKind,
  type Repositories,
  type Store,
} from '../../store/index.ts';
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
  GetActionQuery,
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

export const actionRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
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
      const action = await store.actions.get(request.workspace.id, request.params.action_id);
      if (!action) throw actionNotFound(request.params.action_id);
      return ok(presentActionDetail(action));
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

  // Attach and detach differ only in the change they make; both are all-or-nothing and answer
  // with the agent's attached actions afterwards.
  for (const [path, summary, change] of [
    ['/actions/attach', 'Attach actions to an agent (all or none)', 'attach'],
    ['/actions/detach', 'Detach actions from an agent (all or none)', 'detach'],
  ] as const) {
    app.post(
      path,
      {
        schema: {
          tags: TAG,
          summary,
          body: AttachActionsBody,
          response: { 200: AttachResponse, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const ws = request.workspace.id;
        const { model_id, actions } = request.body;
        const attached = await store.transaction(async (repos) => {
          const agent = await agentAndActions(repos, ws, model_id, actions);
          await repos.actions[change](ws, agent.id, actions);
          return (await repos.actions.attachedTo(ws, [agent.id])).get(agent.id) ?? [];
        });
        return ok({ model_id, actions: attached.map((a) => a.id) });
      },
    );
  }
};
