import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, notFound, toIso, type Plan } from '../../core/index.ts';
import type { Store, Workspace } from '../../store/index.ts';
import type { Authenticator } from '../auth.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  CreateSubaccountBody,
  ListSubaccountsQuery,
  SubaccountPage,
  SubaccountParams,
  SubaccountRead,
  UpdateSubaccountBody,
} from './schemas.ts';

const TAG = ['Subaccounts'];

export function minutesUsed(usageSeconds: number): number {
  return Math.round((usageSeconds / 60) * 100) / 100;
}

function presentSubaccount(w: Workspace) {
  return {
    subaccount_id: w.id,
    name: w.name,
    plan: w.plan,
    max_concurrent_calls: w.maxConcurrentCalls,
    minutes_used: minutesUsed(w.usageSeconds),
    created_at: toIso(w.createdAt),
    updated_at: toIso(w.updatedAt),
  };
}

/** A subaccount may not get more than its parent has: a higher plan or more concurrent calls. */
function checkWithinParent(parent: Workspace, plan: Plan | undefined, maxCalls: number | undefined): void {
  if (plan === 'enterprise' && parent.plan !== 'enterprise') {
    throw invalidInput('body.plan enterprise needs an enterprise parent workspace', ['body', 'plan']);
  }
  if (maxCalls !== undefined && maxCalls > parent.maxConcurrentCalls) {
    throw invalidInput(
      `body.max_concurrent_calls must be at most the parent's ${parent.maxConcurrentCalls}`,
      ['body', 'max_concurrent_calls'],
    );
  }
}

export const subaccountRoutes: FastifyPluginAsyncTypebox<{ store: Store; auth: Authenticator }> = async (
  app,
  { store, auth },
) => {
  const missing = (id: string) => notFound(`subaccount ${id} not found`);

  app.post(
    '/subaccounts',
    {
      schema: {
        tags: TAG,
        summary: 'Create a subaccount; its API key is shown once',
        body: CreateSubaccountBody,
        response: {
          200: okEnvelope(Type.Composite([SubaccountRead, Type.Object({ api_key: Type.String() })])),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const parent = request.workspace;
      if (parent.parentId !== null) {
        throw invalidInput('a subaccount cannot have subaccounts of its own', ['body']);
      }
      const { name, plan, max_concurrent_calls } = request.body;
      checkWithinParent(parent, plan, max_concurrent_calls);
      const { workspace, secret } = await store.transaction(async (repos) => {
        const created = await repos.workspaces.create({
          name,
          plan: plan ?? parent.plan,
          maxConcurrentCalls: max_concurrent_calls ?? parent.maxConcurrentCalls,
          parentId: parent.id,
        });
        const key = await repos.apiKeys.create(created.id, 'subaccount');
        return { workspace: created, secret: key.secret };
      });
      return ok({ ...presentSubaccount(workspace), api_key: secret });
    },
  );

  app.get(
    '/subaccounts',
    {
      schema: {
        tags: TAG,
        summary: 'List subaccounts, newest first',
        querystring: ListSubaccountsQuery,
        response: { 200: okEnvelope(SubaccountPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const page = await store.workspaces.listChildren(request.workspace.id, limit, offset);
      return ok({
        pagination: { total_records: page.total, limit, offset },
        subaccounts: page.items.map(presentSubaccount),
      });
    },
  );

  app.get(
    '/subaccounts/:subaccount_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get a subaccount',
        params: SubaccountParams,
        response: { 200: okEnvelope(Type.Ref('Subaccount')), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const child = await store.workspaces.getChild(request.workspace.id, request.params.subaccount_id);
      if (!child) throw missing(request.params.subaccount_id);
      return ok(presentSubaccount(child));
    },
  );

  app.put(
    '/subaccounts/:subaccount_id',
    {
      schema: {
        tags: TAG,
        summary: 'Update a subaccount; minutes_used: 0 resets its usage',
        params: SubaccountParams,
        body: UpdateSubaccountBody,
        response: { 200: okEnvelope(Type.Ref('Subaccount')), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { name, plan, max_concurrent_calls, minutes_used } = request.body;
      if (minutes_used !== undefined && minutes_used !== 0) {
        throw invalidInput('body.minutes_used can only be set to 0 (reset)', ['body', 'minutes_used']);
      }
      checkWithinParent(request.workspace, plan, max_concurrent_calls);
      const updated = await store.transaction(async (repos) => {
        const child = await repos.workspaces.getChild(request.workspace.id, request.params.subaccount_id);
        if (!child) throw missing(request.params.subaccount_id);
        return repos.workspaces.update(child.id, {
          name,
          plan,
          maxConcurrentCalls: max_concurrent_calls,
          usageSeconds: minutes_used === 0 ? 0 : undefined,
        });
      });
      if (!updated) throw missing(request.params.subaccount_id);
      auth.forgetWorkspace(updated.id);
      return ok(presentSubaccount(updated));
    },
  );

  app.delete(
    '/subaccounts/:subaccount_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a subaccount; its API keys stop working at once',
        params: SubaccountParams,
        response: {
          200: okEnvelope(Type.Object({ answer: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      await store.transaction(async (repos) => {
        const child = await repos.workspaces.getChild(request.workspace.id, request.params.subaccount_id);
        if (!child) throw missing(request.params.subaccount_id);
        await repos.apiKeys.revokeAll(child.id);
        await repos.workspaces.softDelete(child.id);
      });
      auth.forgetWorkspace(request.params.subaccount_id);
      return ok({ answer: 'Subaccount deleted' });
    },
  );
};
