import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput, isUuid, notFound } from '../../core/index.ts';
import type { Agent, Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { ModelIdParams } from './schemas.ts';
import { diffSnapshots } from './version-diff.ts';
import { presentSnapshot, presentVersionSummary } from './version-present.ts';
import {
  DiffQuery,
  DiffResponse,
  ListVersionsQuery,
  LiveResponse,
  PublishBody,
  RestoreResponse,
  VersionPage,
  VersionParams,
  VersionRead,
} from './version-schemas.ts';

// Agent versions (docs/agent-versions.md), a Parley extension in the style of the agent routes:
// the success envelope, and, as the agent operations list no 404, an unknown agent or version is
// a 400 with category not_found naming the parameter (WIRE.md section 1).

const TAG = ['Agent versions'];

const missingAgent = (id: string) => notFound(`params.model_id: agent ${id} not found`, 400);
const missingVersion = (agentId: string, id: string) =>
  notFound(`params.version_id: agent ${agentId} has no version ${id}`, 400);

export const versionRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  async function agentOf(workspaceId: string, id: string): Promise<Agent> {
    const agent = isUuid(id) ? await store.agents.get(workspaceId, id) : null;
    if (!agent) throw missingAgent(id);
    return agent;
  }

  /** One side of a diff: the draft, the live version, or a version of the agent. */
  async function side(agent: Agent, ref: string, field: 'from' | 'to') {
    const target = ref === 'live' ? (agent.liveVersionId ?? 'draft') : ref;
    if (target === 'draft') {
      const snapshot = await store.agentVersions.draft(agent.workspaceId, agent.id);
      if (!snapshot) throw missingAgent(agent.id);
      return { ref, versionId: null, snapshot };
    }
    const loc = ['query', field];
    if (!isUuid(target)) throw invalidInput(`query.${field} must be "draft", "live" or a version UUID`, loc);
    const version = await store.agentVersions.get(agent.workspaceId, agent.id, target);
    if (!version) throw invalidInput(`query.${field}: agent ${agent.id} has no version ${target}`, loc);
    return { ref, versionId: version.id, snapshot: version.snapshot };
  }

  app.post(
    '/assistants/:model_id/versions',
    {
      schema: {
        tags: TAG,
        summary: 'Publish the draft as a new version, which becomes live',
        description:
          'Snapshots the agent as it is now: its config, its attached actions (their definitions and attachment settings) and its knowledge base attachment. New calls, chats and simulations run it.',
        params: ModelIdParams,
        body: PublishBody,
        response: { 200: okEnvelope(VersionRead), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.model_id;
      if (!isUuid(id)) throw missingAgent(id);
      const version = await store.agentVersions.publish(ws, id, request.body?.description ?? null);
      if (!version) throw missingAgent(id);
      return ok({
        ...presentVersionSummary(version, version.id),
        snapshot: presentSnapshot(version.snapshot),
      });
    },
  );

  app.get(
    '/assistants/:model_id/versions',
    {
      schema: {
        tags: TAG,
        summary: "List the agent's published versions, newest first",
        params: ModelIdParams,
        querystring: ListVersionsQuery,
        response: { 200: okEnvelope(VersionPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      const { limit, offset } = request.query;
      const page = await store.agentVersions.list(agent.workspaceId, agent.id, limit, offset);
      return ok({
        pagination: { total_records: page.total, limit, offset },
        live_version_id: agent.liveVersionId,
        versions: page.items.map((v) => presentVersionSummary(v, agent.liveVersionId)),
      });
    },
  );

  app.get(
    '/assistants/:model_id/versions/diff',
    {
      schema: {
        tags: TAG,
        summary: 'The field-by-field difference between two versions (or the draft)',
        description:
          'Config fields by JSON path, actions and knowledge bases by id. `from` defaults to `live` and `to` to `draft`: what publishing now would change.',
        params: ModelIdParams,
        querystring: DiffQuery,
        response: { 200: okEnvelope(DiffResponse), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      const from = await side(agent, request.query.from, 'from');
      const to = await side(agent, request.query.to, 'to');
      return ok({
        from: { ref: from.ref, version_id: from.versionId },
        to: { ref: to.ref, version_id: to.versionId },
        changes: diffSnapshots(presentSnapshot(from.snapshot), presentSnapshot(to.snapshot)),
      });
    },
  );

  app.get(
    '/assistants/:model_id/versions/:version_id',
    {
      schema: {
        tags: TAG,
        summary: 'One version with its full snapshot',
        params: VersionParams,
        response: { 200: okEnvelope(VersionRead), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      const id = request.params.version_id;
      const version = isUuid(id) ? await store.agentVersions.get(agent.workspaceId, agent.id, id) : null;
      if (!version) throw missingVersion(agent.id, id);
      return ok({
        ...presentVersionSummary(version, agent.liveVersionId),
        snapshot: presentSnapshot(version.snapshot),
      });
    },
  );

  app.post(
    '/assistants/:model_id/versions/:version_id/restore',
    {
      schema: {
        tags: TAG,
        summary: 'Restore a version as the draft (does not publish)',
        description:
          "The draft's config and the agent's action and knowledge base attachments become the version's. Actions or bases deleted since are listed, not attached.",
        params: VersionParams,
        response: { 200: okEnvelope(RestoreResponse), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      const id = request.params.version_id;
      const restored = isUuid(id) ? await store.agentVersions.restore(agent.workspaceId, agent.id, id) : null;
      if (!restored) throw missingVersion(agent.id, id);
      return ok({
        model_id: agent.id,
        restored_version_id: id,
        missing_action_ids: restored.missingActionIds,
        missing_knowledge_base_ids: restored.missingKnowledgeBaseIds,
      });
    },
  );

  app.post(
    '/assistants/:model_id/versions/:version_id/live',
    {
      schema: {
        tags: TAG,
        summary: 'Make a published version live (roll back or forward); the draft is untouched',
        params: VersionParams,
        response: { 200: okEnvelope(LiveResponse), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const agent = await agentOf(request.workspace.id, request.params.model_id);
      const id = request.params.version_id;
      const moved = isUuid(id) && (await store.agentVersions.setLive(agent.workspaceId, agent.id, id));
      if (!moved) throw missingVersion(agent.id, id);
      return ok({ model_id: agent.id, live_version_id: id });
    },
  );
};
