import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { agentNotFound, type AgentService } from '../../agents/index.ts';
import { invalidInput, normalizeE164, slugOf } from '../../core/index.ts';
import type { Agent, Store } from '../../store/index.ts';
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

function details(agent: Agent, phone: string) {
  const voice = agent.spec.agent?.voice_id ?? '';
  return { phone, voice };
}

export const assistantRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Agent changes and their numbers (src/agents). */
  agents: AgentService;
  speech?: SpeechRegistry;
}> = async (app, { store, agents, speech }) => {
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
      const { agent, phone } = await agents.create(request.workspace.id, {
        type: request.body.type,
        name: request.body.name,
        spec,
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
      const body = request.body as typeof request.body & Record<string, unknown>;
      const { agent, phone } = await agents.update(request.workspace.id, request.params.model_id, {
        name: body.name,
        spec: (current) => specForUpdate(current, body),
        attachNumber: body.phone_number !== undefined,
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
      await agents.remove(request.workspace.id, request.params.model_id);
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
      await agents.attachNumbers(request.workspace.id, request.params.model_id, slugs);
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
      const { model_id, phone_number_slug } = request.params;
      await agents.detachNumber(request.workspace.id, model_id, phone_number_slug);
      return { status: 'ok' as const };
    },
  );
};
