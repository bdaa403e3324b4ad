import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { invalidInput, normalizeE164, notFound, slugOf } from '../../core/index.ts';
import type { Agent, Repositories, Store } from '../../store/index.ts';
import type { SpeechRegistry, VoiceChoice } from '../../speech/index.ts';
import { ok, type Ok, type Pagination } from '../envelope.ts';
import { StatusOnly, errorResponses, okEnvelope } from '../schemas/common.ts';
import { presentAgent } from './present.ts';
import { createVersionedCache } from './read-cache.ts';
import { specForCreate, specForUpdate } from './rules.ts';
import {
  AgentPage,
  AttachNumbersBody,
  CreateAgentBody,
  DetachNumberParams,
  GetAgentQuery,
  ListAgentsQuery,
  ModelIdParams,
  UpdateAgentBody,
} from './schemas.ts';

const TAG = ['Agents'];

/** Sends a body already serialized by the route's serializer (its type provider knows objects only). */
function sendSerialized(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}

type AgentPageBody = Ok<{ pagination: Pagination; assistants: ReturnType<typeof presentAgent>[] }>;
const MutationResponse = okEnvelope(Type.Object({ model_id: Type.String() }), {
  details: Type.Object({ phone: Type.String(), voice: Type.String() }),
});

// The spec lists no 404 for the agent operations themselves, so an unknown agent is a 400 with
// category not_found there (WIRE.md section 1); the number operations list 404 and use it.
const agentNotFound = (id: string, status: 400 | 404 = 400) => notFound(`agent ${id} not found`, status);

/** Attaches the agent's `phone_number` when the workspace owns it; returns what was attached. */
async function attachOwnNumber(repos: Repositories, agent: Agent): Promise<string> {
  const number = agent.spec.phone_number;
  if (!number) return '';
  const [found] = await repos.phoneNumbers.findBySlugs(agent.workspaceId, [slugOf(number)]);
  if (!found) return '';
  await repos.phoneNumbers.attach(agent.workspaceId, agent.id, [found.id]);
  return found.number;
}

function details(agent: Agent, phone: string) {
  const voice = agent.spec.agent?.voice_id ?? '';
  return { phone, voice };
}

export const assistantRoutes: FastifyPluginAsyncTypebox<{ store: Store; speech?: SpeechRegistry }> = async (
  app,
  { store, speech },
) => {
  /** The voice each agent's calls speak with, when this server chooses speech per call. */
  const voicesOf = async (ws: string, agents: Agent[]): Promise<(VoiceChoice | null)[]> =>
    speech ? Promise.all(agents.map((a) => speech.voiceOf(ws, a.spec.agent ?? {}))) : agents.map(() => null);

  // GET /assistants responses by workspace and request; see read-cache.ts for why this is exact.
  // Bodies are kept serialized (by the route's own response serializer), so a hit is sent as is.
  const reads = createVersionedCache();

  /**
   * Answers a read from the cache when it was made at the workspace's current agents version,
   * else loads, serializes and remembers it. The version is read before the data (see
   * bumpAgentsVersion in the store).
   */
  async function cachedRead(
    reply: FastifyReply,
    workspaceId: string,
    key: string,
    load: () => Promise<AgentPageBody>,
  ): Promise<FastifyReply> {
    const version = await store.workspaces.agentsVersion(workspaceId);
    const cached = reads.get(key, version);
    if (cached !== undefined) return sendSerialized(reply, cached);
    const json = String(reply.serialize(await load()));
    reads.set(key, version, json);
    return sendSerialized(reply, json);
  }

  app.post(
    '/assistants',
    {
      schema: {
        tags: TAG,
        summary: 'Create an agent',
        body: CreateAgentBody,
        response: { 200: MutationResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const spec = specForCreate(request.body);
      const ws = request.workspace.id;
      const { agent, phone } = await store.transaction(async (repos) => {
        const created = await repos.agents.create(ws, {
          type: request.body.type,
          name: request.body.name,
          spec,
        });
        return { agent: created, phone: await attachOwnNumber(repos, created) };
      });
      return { ...ok({ model_id: agent.id }), details: details(agent, phone) };
    },
  );

  app.put(
    '/assistants/:model_id',
    {
      schema: {
        tags: TAG,
        summary: 'Update an agent (merges `agent` key by key)',
        params: ModelIdParams,
        body: UpdateAgentBody,
        response: { 200: MutationResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const id = request.params.model_id;
      const { agent, phone } = await store.transaction(async (repos) => {
        const current = await repos.agents.get(ws, id);
        if (!current) throw agentNotFound(id);
        const spec = specForUpdate(
          current.spec,
          request.body as typeof request.body & Record<string, unknown>,
        );
        const updated = await repos.agents.update(ws, id, { name: request.body.name ?? current.name, spec });
        if (!updated) throw agentNotFound(id);
        const phoneChanged = request.body.phone_number !== undefined;
        return { agent: updated, phone: phoneChanged ? await attachOwnNumber(repos, updated) : '' };
      });
      return { ...ok({ model_id: agent.id }), details: details(agent, phone) };
    },
  );

  app.delete(
    '/assistants/:model_id',
    {
      schema: {
        tags: TAG,
        summary: 'Delete an agent',
        params: ModelIdParams,
        response: { 200: okEnvelope(Type.Object({ answer: Type.String() })), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const id = request.params.model_id;
      const deleted = await store.transaction((repos) => repos.agents.delete(request.workspace.id, id));
      if (!deleted) throw agentNotFound(id);
      return ok({ answer: 'Agent deleted' });
    },
  );

  app.get(
    '/assistants/:model_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get an agent (a one-element page)',
        params: ModelIdParams,
        querystring: GetAgentQuery,
        response: { 200: okEnvelope(AgentPage), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const ws = request.workspace.id;
      const withActions = request.query.include_actions;
      // include_actions changes the body, so it is part of the key.
      const key = `${ws}\0one\0${withActions ? 1 : 0}\0${request.params.model_id}`;
      return cachedRead(reply, ws, key, async () => {
        const agent = await store.agents.get(ws, request.params.model_id);
        if (!agent) throw agentNotFound(request.params.model_id);
        const numbers = await store.phoneNumbers.attachedTo(ws, [agent.id]);
        const actions = withActions ? await store.actions.attachedTo(ws, [agent.id]) : null;
        const base = await store.knowledge.baseOfAgent(ws, agent.id);
        const [voice] = await voicesOf(ws, [agent]);
        return ok({
          pagination: { total_records: 1, limit: 1, offset: 0 },
          assistants: [
            presentAgent(
              agent,
              numbers.get(agent.id) ?? [],
              actions?.get(agent.id) ?? [],
              base,
              voice ?? null,
            ),
          ],
        });
      });
    },
  );

  app.get(
    '/assistants/',
    {
      schema: {
        tags: TAG,
        summary: 'List agents, newest first',
        querystring: ListAgentsQuery,
        response: { 200: okEnvelope(AgentPage), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const ws = request.workspace.id;
      const { limit, offset, include_actions: withActions } = request.query;
      const key = `${ws}\0list\0${withActions ? 1 : 0}\0${limit}\0${offset}`;
      return cachedRead(reply, ws, key, async () => {
        const page = await store.agents.list(ws, limit, offset);
        const ids = page.items.map((a) => a.id);
        const numbers = await store.phoneNumbers.attachedTo(ws, ids);
        const actions = withActions ? await store.actions.attachedTo(ws, ids) : null;
        const bases = await store.knowledge.basesOfAgents(ws, ids);
        const voices = await voicesOf(ws, page.items);
        return ok({
          pagination: { total_records: page.total, limit, offset },
          assistants: page.items.map((a, i) =>
            presentAgent(
              a,
              numbers.get(a.id) ?? [],
              actions?.get(a.id) ?? [],
              bases.get(a.id) ?? null,
              voices[i] ?? null,
            ),
          ),
        });
      });
    },
  );

  app.put(
    '/assistants/:model_id/phone_numbers',
    {
      schema: {
        tags: TAG,
        summary: 'Attach outbound numbers to an agent, by numbers or by slugs',
        params: ModelIdParams,
        body: AttachNumbersBody,
        response: { 200: StatusOnly, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { phone_numbers, phone_number_slugs } = request.body;
      if (!phone_numbers && !phone_number_slugs) {
        throw invalidInput('body.phone_numbers or body.phone_number_slugs is required', [
          'body',
          'phone_numbers',
        ]);
      }
      const slugs = [
        ...(phone_numbers ?? []).map((raw, i) => {
          const e164 = normalizeE164(raw);
          if (!e164) {
            throw invalidInput(`body.phone_numbers[${i}] is not a valid phone number`, [
              'body',
              'phone_numbers',
              i,
            ]);
          }
          return slugOf(e164);
        }),
        ...(phone_number_slugs ?? []).map((s) => (s.startsWith('+') ? s.slice(1) : s)),
      ];
      await store.transaction(async (repos) => {
        const agent = await repos.agents.get(ws, request.params.model_id);
        if (!agent) throw agentNotFound(request.params.model_id, 404);
        const found = await repos.phoneNumbers.findBySlugs(ws, slugs);
        const missing = slugs.filter((s) => !found.some((n) => n.slug === s));
        if (missing.length > 0) {
          throw notFound(`phone number ${missing.map((s) => `+${s}`).join(', ')} not found in the workspace`);
        }
        await repos.phoneNumbers.attach(
          ws,
          agent.id,
          found.map((n) => n.id),
        );
      });
      return { status: 'ok' as const };
    },
  );

  app.delete(
    '/assistants/:model_id/phone_numbers/:phone_number_slug',
    {
      schema: {
        tags: TAG,
        summary: 'Detach one outbound number from an agent',
        params: DetachNumberParams,
        response: { 200: StatusOnly, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { model_id, phone_number_slug } = request.params;
      const slug = phone_number_slug.startsWith('+') ? phone_number_slug.slice(1) : phone_number_slug;
      await store.transaction(async (repos) => {
        const agent = await repos.agents.get(ws, model_id);
        if (!agent) throw agentNotFound(model_id, 404);
        const [number] = await repos.phoneNumbers.findBySlugs(ws, [slug]);
        if (!number || !(await repos.phoneNumbers.detach(ws, agent.id, number.id))) {
          throw notFound(`phone number ${phone_number_slug} is not attached to agent ${model_id}`);
        }
      });
      return { status: 'ok' as const };
    },
  );
};
