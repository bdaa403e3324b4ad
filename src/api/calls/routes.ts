import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { chooseOrigin, type CallService } from '../../calls/index.ts';
import {
  invalidInput,
  isUuid,
  requireE164,
  notFound,
  toVariableMap,
  unavailable,
  isValidTimeZone,
} from '../../core/index.ts';
import type { Agent, Store } from '../../store/index.ts';
import type { SimCarrier } from '../../telephony/index.ts';
import { ok } from '../envelope.ts';
import { agentTimezoneOf, listItem, presentCall } from './present.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  CallIdParams,
  CallPage,
  CallReadPage,
  ListCallsQuery,
  PlaceCallBody,
  PlaceCallResponse,
  SimInboundBody,
  SimInboundResult,
} from './schemas.ts';

// Calls (spec "Calls", WIRE.md section 4). The spec lists 200 and 400 for placing and listing,
// so an unknown agent there is a 400 (category not_found); reading one call also lists 404.

const TAG = ['Calls'];

function checkHttpUrl(value: string, loc: string[]) {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw invalidInput(`${loc.join('.')} must be an absolute http or https URL`, loc, 'url');
}

export const callRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  calls: CallService;
  /** The sim carrier, which places the sim's inbound calls (`POST /sim/inbound`). */
  sim?: Pick<SimCarrier, 'ring'>;
}> = async (app, options) => {
  const { store, calls, sim } = options;

  /** The time zone of each agent named (a deleted agent has none: its calls show the lead's or UTC). */
  async function agentTimezones(workspaceId: string, known: Agent[], ids: string[]) {
    const zones = new Map<string, string | undefined>(known.map((a) => [a.id, agentTimezoneOf(a.spec)]));
    const missing = [...new Set(ids)].filter((id) => !zones.has(id));
    const agents = await Promise.all(missing.map((id) => store.agents.get(workspaceId, id)));
    missing.forEach((id, i) => zones.set(id, agents[i] ? agentTimezoneOf(agents[i].spec) : undefined));
    return zones;
  }

  app.post(
    '/calls',
    {
      schema: {
        tags: TAG,
        summary: 'Make a call',
        description:
          'Stores the call and starts it as soon as the workspace has a free concurrency slot (it waits as `pending` until then; `eta` estimates the wait in seconds). On the sim carrier, the last four digits of `phone` choose the outcome (see the README).',
        body: PlaceCallBody,
        response: { 200: PlaceCallResponse, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const workspace = request.workspace;
      const body = request.body;
      const to = requireE164(body.phone, ['body', 'phone']);
      if (body.lead_timezone !== undefined && !isValidTimeZone(body.lead_timezone))
        throw invalidInput(`body.lead_timezone "${body.lead_timezone}" is not an IANA time zone`, [
          'body',
          'lead_timezone',
        ]);
      if (
        body.lead_email !== undefined &&
        body.lead_email !== '' &&
        !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(body.lead_email)
      )
        throw invalidInput('body.lead_email is not an email address', ['body', 'lead_email']);
      if (body.external_webhook_url !== undefined)
        checkHttpUrl(body.external_webhook_url, ['body', 'external_webhook_url']);
      const { agent, number, from, version } = await chooseOrigin(store, workspace, 'call', {
        agentId: body.model_id,
        from: body.from_phone_number,
        version: body.agent_version,
      });
      const variables = toVariableMap(body.custom_variables);
      const { call, eta } = await calls.place(workspace, {
        agent,
        ...(version !== undefined ? { version } : {}),
        from,
        provider: number.provider,
        to,
        leadName: body.name,
        leadEmail: body.lead_email || null,
        leadTimezone: body.lead_timezone ?? null,
        variables,
        ...(body.metadata ? { metadata: body.metadata } : {}),
        ...(body.prompt !== undefined ? { prompt: body.prompt } : {}),
        ...(body.greeting !== undefined ? { greeting: body.greeting } : {}),
        ...(body.external_webhook_url !== undefined ? { webhookUrl: body.external_webhook_url } : {}),
      });
      return { status: 'ok' as const, response: { answer: 'ok' as const, call_id: call.id }, eta };
    },
  );

  app.get(
    '/calls',
    {
      schema: {
        tags: TAG,
        summary: "List an agent's calls (or, without model_id, the workspace's), newest first",
        querystring: ListCallsQuery,
        response: { 200: okEnvelope(CallPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = request.query;
      const workspaceId = request.workspace.id;
      const agent = q.model_id === undefined ? null : await store.agents.get(workspaceId, q.model_id);
      if (q.model_id !== undefined && !agent) throw notFound(`model_id: agent ${q.model_id} not found`, 400);
      const leadPhone =
        q.lead_phone_number === undefined
          ? undefined
          : requireE164(q.lead_phone_number, ['query', 'lead_phone_number']);
      if (q.duration_min !== undefined && q.duration_max !== undefined && q.duration_min > q.duration_max)
        throw invalidInput('query.duration_max must not be below duration_min', ['query', 'duration_max']);
      if (q.from_date !== undefined && q.to_date !== undefined && q.from_date > q.to_date)
        throw invalidInput('query.to_date must not be before from_date', ['query', 'to_date']);
      const page = await store.calls.list(workspaceId, {
        ...(agent ? { agentId: agent.id } : {}),
        limit: q.limit,
        offset: q.offset,
        ...(q.call_status !== undefined ? { status: q.call_status } : {}),
        ...(q.from_date !== undefined ? { fromDate: q.from_date } : {}),
        ...(q.to_date !== undefined ? { toDate: q.to_date } : {}),
        ...(q.duration_min !== undefined ? { durationMin: q.duration_min } : {}),
        ...(q.duration_max !== undefined ? { durationMax: q.duration_max } : {}),
        ...(leadPhone !== undefined ? { leadPhone } : {}),
        ...(q.batch_call_id !== undefined ? { batchCallId: q.batch_call_id } : {}),
      });
      const zones = await agentTimezones(
        workspaceId,
        agent ? [agent] : [],
        page.calls.map((c) => c.agentId),
      );
      return ok({
        pagination: { total_records: page.total, limit: q.limit, offset: q.offset },
        calls: page.calls.map((c) => listItem(c, zones.get(c.agentId))),
      });
    },
  );

  app.get(
    '/calls/:call_id',
    {
      schema: {
        tags: TAG,
        summary: 'A call: transcript, metadata, actions, analysis and quality',
        params: CallIdParams,
        response: { 200: okEnvelope(CallReadPage), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.call_id;
      if (!isUuid(id)) throw invalidInput('params.call_id must be a UUID', ['params', 'call_id']);
      const call = await store.calls.get(request.workspace.id, id);
      if (!call) throw notFound(`call ${id} not found`);
      const agent = await store.agents.get(call.workspaceId, call.agentId);
      return ok({
        pagination: { total_records: 1, limit: 1, offset: 0 },
        calls: [presentCall(call, agent ? agentTimezoneOf(agent.spec) : undefined)],
      });
    },
  );

  app.post(
    '/sim/inbound',
    {
      schema: {
        tags: TAG,
        summary:
          'Place an inbound call on the sim carrier (a simulated person calls one of your sim numbers)',
        body: SimInboundBody,
        response: { 200: okEnvelope(SimInboundResult), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const workspace = request.workspace;
      const from = requireE164(request.body.from_number, ['body', 'from_number']);
      const to = requireE164(request.body.to_number, ['body', 'to_number']);
      const number = await store.phoneNumbers.getBySlug(workspace.id, to.slice(1));
      if (!number) throw notFound(`to_number: ${to} is not a number of this workspace`);
      if (number.provider !== 'sim')
        throw invalidInput(`body.to_number: ${to} is a ${number.provider} number, not a sim number`, [
          'body',
          'to_number',
        ]);
      if (!sim) throw unavailable('this server has no sim carrier');
      const taken = await sim.ring({ from, to, workspaceId: workspace.id });
      return ok({ call_id: taken.callId, status: taken.status });
    },
  );
};
