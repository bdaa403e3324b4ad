import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { invalidInput, notFound, toIso, type Plan } from '../../core/index.ts';
import type { Store, Workspace } from '../../store/index.ts';
import type { SubaccountService } from '../../workspace/index.ts';
import type { Authenticator } from '../auth.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  SUBACCOUNT_PERMISSIONS,
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

/** Whole minutes, as the published API types `minutes_used`: a started minute counts. */
function wholeMinutes(usageSeconds: number): number {
  return Math.ceil(usageSeconds / 60);
}

/** Parley restricts nothing a subaccount manages; it has no workflows. */
const PERMISSIONS = Object.fromEntries(SUBACCOUNT_PERMISSIONS.map((p) => [p, p !== 'workflows'])) as Record<
  (typeof SUBACCOUNT_PERMISSIONS)[number],
  boolean
>;

function presentSubaccount(w: Workspace) {
  return {
    subaccount_id: w.id,
    name: w.name,
    plan: w.plan,
    max_concurrent_calls: w.maxConcurrentCalls,
    minutes_used: wholeMinutes(w.usageSeconds),
    seconds_used: Math.round(w.usageSeconds),
    agency_id: w.parentId ?? '',
    permissions: PERMISSIONS,
    pricing_tiers: [],
    members: [],
    max_minutes: null,
    created_at: toIso(w.createdAt),
    updated_at: toIso(w.updatedAt),
  };
}

/**
 * `subaccount_name` and `concurrency` (the published names) stand for `name` and
 * `max_concurrent_calls`; both names at once must agree.
 */
function resolveAliases(body: {
  name?: string | undefined;
  subaccount_name?: string | undefined;
  max_concurrent_calls?: number | undefined;
  concurrency?: number | undefined;
}): { name: string | undefined; maxConcurrentCalls: number | undefined } {
  if (body.name !== undefined && body.subaccount_name !== undefined && body.name !== body.subaccount_name) {
    throw invalidInput('body.subaccount_name differs from body.name (they are the same field)', [
      'body',
      'subaccount_name',
    ]);
  }
  if (
    body.max_concurrent_calls !== undefined &&
    body.concurrency !== undefined &&
    body.max_concurrent_calls !== body.concurrency
  ) {
    throw invalidInput('body.concurrency differs from body.max_concurrent_calls (they are the same field)', [
      'body',
      'concurrency',
    ]);
  }
  return {
    name: body.name ?? body.subaccount_name,
    maxConcurrentCalls: body.max_concurrent_calls ?? body.concurrency,
  };
}

/** A subaccount may not get more than its parent has: a higher plan or more concurrent calls. */
function checkWithinParent(
  parent: Workspace,
  plan: Plan | undefined,
  maxCalls: number | undefined,
  maxCallsField: 'max_concurrent_calls' | 'concurrency',
): void {
  if (plan === 'enterprise' && parent.plan !== 'enterprise') {
    throw invalidInput('body.plan enterprise needs an enterprise parent workspace', ['body', 'plan']);
  }
  if (maxCalls !== undefined && maxCalls > parent.maxConcurrentCalls) {
    throw invalidInput(`body.${maxCallsField} must be at most the parent's ${parent.maxConcurrentCalls}`, [
      'body',
      maxCallsField,
    ]);
  }
}

const callsField = (body: { max_concurrent_calls?: number | undefined }) =>
  body.max_concurrent_calls === undefined ? 'concurrency' : 'max_concurrent_calls';

export const subaccountRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Subaccount changes (src/workspace). */
  subaccounts: SubaccountService;
  auth: Authenticator;
}> = async (app, { store, subaccounts, auth }) => {
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
      // The published API's `subaccount_name` fills the required `name` when that is absent.
      preValidation: async (request) => {
        const body = request.body as Record<string, unknown> | null | undefined;
        if (body && typeof body === 'object' && !Array.isArray(body) && body.name === undefined) {
          if (typeof body.subaccount_name === 'string') body.name = body.subaccount_name;
        }
      },
    },
    async (request) => {
      const parent = request.workspace;
      if (parent.parentId !== null) {
        throw invalidInput('a subaccount cannot have subaccounts of its own', ['body']);
      }
      const { name, plan } = request.body;
      const { maxConcurrentCalls } = resolveAliases(request.body);
      checkWithinParent(parent, plan, maxConcurrentCalls, callsField(request.body));
      const { workspace, secret } = await subaccounts.create(parent, { name, plan, maxConcurrentCalls });
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
        summary: 'Get a subaccount (also as the one-element `subaccounts` array of the published API)',
        params: SubaccountParams,
        response: {
          200: okEnvelope(
            Type.Composite([
              SubaccountRead,
              Type.Object({ subaccounts: Type.Array(Type.Ref('Subaccount')) }),
            ]),
          ),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const child = await store.workspaces.getChild(request.workspace.id, request.params.subaccount_id);
      if (!child) throw missing(request.params.subaccount_id);
      const record = presentSubaccount(child);
      return ok({ ...record, subaccounts: [record] });
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
      const { plan, minutes_used } = request.body;
      if (minutes_used !== undefined && minutes_used !== 0) {
        throw invalidInput('body.minutes_used can only be set to 0 (reset)', ['body', 'minutes_used']);
      }
      const { name, maxConcurrentCalls } = resolveAliases(request.body);
      checkWithinParent(request.workspace, plan, maxConcurrentCalls, callsField(request.body));
      const updated = await subaccounts.update(request.workspace.id, request.params.subaccount_id, {
        name,
        plan,
        maxConcurrentCalls,
        usageSeconds: minutes_used === 0 ? 0 : undefined,
      });
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
      await subaccounts.remove(request.workspace.id, request.params.subaccount_id);
      auth.forgetWorkspace(request.params.subaccount_id);
      return ok({ answer: 'Subaccount deleted' });
    },
  );
};
