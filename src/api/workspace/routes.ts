import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound, toIso } from '../../core/index.ts';
import type { ApiKey, Store, Workspace } from '../../store/index.ts';
import type { WorkspaceSettings } from '../../workspace/index.ts';
import type { Authenticator } from '../auth.ts';
import { ok } from '../envelope.ts';
import { NonEmptyString, errorResponses, okEnvelope } from '../schemas/common.ts';
import { minutesUsed } from '../subaccounts/routes.ts';

// The caller's own workspace: its settings (WIRE.md section 11), webhook secret (section 9) and
// API keys. These are Parley's additions to the spec, which leaves workspace settings to a UI.

const TAG = ['Workspace'];

const WorkspaceRead = Type.Object(
  {
    workspace_id: Type.String(),
    name: Type.String(),
    plan: Type.String(),
    max_concurrent_calls: Type.Integer(),
    calls_per_second: Type.Union([Type.Number(), Type.Null()], { description: 'null: unlimited.' }),
    include_timeline_in_webhook: Type.Boolean({
      description: 'Adds action_execution_timeline to post-call webhooks.',
    }),
    default_agent_id: Type.Union([Type.String(), Type.Null()], { description: 'Inbound fallback agent.' }),
    minutes_used: Type.Number(),
    parent_workspace_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Workspace', title: 'Workspace' },
);

const UpdateWorkspaceBody = Type.Object({
  name: Type.Optional(NonEmptyString(200)),
  include_timeline_in_webhook: Type.Optional(Type.Boolean()),
  default_agent_id: Type.Optional(Type.Union([NonEmptyString(100), Type.Null()])),
  calls_per_second: Type.Optional(
    Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 100_000 }), Type.Null()], {
      description:
        'Calls started per second at most (token bucket, bursts up to one second); null: unlimited.',
    }),
  ),
});

const ApiKeyRead = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key.' }),
  created_at: Type.String({ format: 'date-time' }),
});

function presentWorkspace(w: Workspace) {
  return {
    workspace_id: w.id,
    name: w.name,
    plan: w.plan,
    max_concurrent_calls: w.maxConcurrentCalls,
    calls_per_second: w.callsPerSecond,
    include_timeline_in_webhook: w.includeTimelineInWebhook,
    default_agent_id: w.defaultAgentId,
    minutes_used: minutesUsed(w.usageSeconds),
    parent_workspace_id: w.parentId,
    created_at: toIso(w.createdAt),
    updated_at: toIso(w.updatedAt),
  };
}

const presentKey = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: toIso(k.createdAt),
});

export const workspaceRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Settings and key changes (src/workspace). */
  settings: WorkspaceSettings;
  auth: Authenticator;
}> = async (app, { store, settings, auth }) => {
  app.get(
    '/workspace',
    {
      schema: {
        tags: TAG,
        summary: "The caller's workspace and its settings",
        response: { 200: okEnvelope(WorkspaceRead), ...errorResponses(401) },
      },
    },
    async (request) => ok(presentWorkspace(request.workspace)),
  );

  app.put(
    '/workspace',
    {
      schema: {
        tags: TAG,
        summary: "Update the caller's workspace settings",
        body: UpdateWorkspaceBody,
        response: { 200: okEnvelope(WorkspaceRead), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { name, include_timeline_in_webhook, default_agent_id, calls_per_second } = request.body;
      const updated = await settings.update(ws, {
        name,
        includeTimelineInWebhook: include_timeline_in_webhook,
        defaultAgentId: default_agent_id,
        ...(calls_per_second !== undefined ? { callsPerSecond: calls_per_second } : {}),
      });
      auth.forgetWorkspace(ws);
      return ok(presentWorkspace(updated));
    },
  );

  const SecretResponse = okEnvelope(Type.Object({ webhook_secret: Type.String() }));

  app.get(
    '/webhook_secret',
    {
      schema: {
        tags: TAG,
        summary: 'The Standard Webhooks secret that signs this workspace’s webhooks',
        response: { 200: SecretResponse, ...errorResponses(401) },
      },
    },
    async (request) => ok({ webhook_secret: request.workspace.webhookSecret }),
  );

  app.post(
    '/webhook_secret/rotate',
    {
      schema: {
        tags: TAG,
        summary: 'Replace the webhook secret (webhooks are signed with the old one too for 24 h)',
        response: { 200: SecretResponse, ...errorResponses(401) },
      },
    },
    async (request) => {
      const updated = await store.workspaces.rotateWebhookSecret(request.workspace.id);
      if (!updated) throw notFound('workspace not found', 404);
      auth.forgetWorkspace(updated.id);
      return ok({ webhook_secret: updated.webhookSecret });
    },
  );

  app.get(
    '/api_keys',
    {
      schema: {
        tags: TAG,
        summary: "The workspace's API keys (never the keys themselves)",
        response: {
          200: okEnvelope(Type.Object({ api_keys: Type.Array(ApiKeyRead) })),
          ...errorResponses(401),
        },
      },
    },
    async (request) => ok({ api_keys: (await store.apiKeys.list(request.workspace.id)).map(presentKey) }),
  );

  app.post(
    '/api_keys',
    {
      schema: {
        tags: TAG,
        summary: 'Create an API key; the key is shown once',
        body: Type.Object({ name: Type.Optional(NonEmptyString(200)) }),
        response: {
          200: okEnvelope(Type.Composite([ApiKeyRead, Type.Object({ api_key: Type.String() })])),
          ...errorResponses(400, 401),
        },
      },
      // The body is optional: a request without one (no content-type) creates a key named `api`.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request) => {
      const created = await store.apiKeys.create(request.workspace.id, request.body.name ?? 'api');
      return ok({ ...presentKey(created.apiKey), api_key: created.secret });
    },
  );

  app.delete(
    '/api_keys/:key_id',
    {
      schema: {
        tags: TAG,
        summary: 'Revoke an API key (a workspace keeps at least one)',
        params: Type.Object({ key_id: NonEmptyString(100) }),
        response: {
          200: okEnvelope(Type.Object({ answer: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      await settings.revokeKey(ws, request.params.key_id);
      auth.forgetWorkspace(ws);
      return ok({ answer: 'API key revoked' });
    },
  );
};
