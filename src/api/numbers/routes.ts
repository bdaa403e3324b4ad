import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { NumberService } from '../../agents/index.ts';
import { ParleyError, notFound, requireE164, toIso } from '../../core/index.ts';
import type { SipRegistrationRecord, Store, Workspace } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  GetNumberQuery,
  ImportNumberBody,
  ImportedNumber,
  ListNumbersQuery,
  NumberDetail,
  NumberPage,
  SlugParams,
  UpdateNumberBody,
} from './schemas.ts';
import {
  DEFAULT_SIP_PORT,
  DEFAULT_UAC_REGISTER_EXPIRES,
  readTrunk,
  resolveCarrier,
  termUriOf,
  touchesCarrier,
} from './trunk.ts';

const TAG = ['Phone numbers'];

type NumberRecord = NonNullable<Awaited<ReturnType<Store['phoneNumbers']['getBySlug']>>>;

/** Numbers whose texts go out through a real (or the simulated) messaging adapter. */
const SMS_PROVIDERS: readonly string[] = ['sim', 'twilio'];

/** Parley's record plus the published fields (docs/api-notes.md, "Phone numbers"). */
function presentNumber(
  n: NumberRecord,
  agents: string[],
  workspace: Workspace,
  registration: SipRegistrationRecord | null = null,
) {
  const trunk = readTrunk(n.sip);
  const iso = (ms: number | null) => (ms === null ? null : toIso(ms));
  return {
    phone_number: n.number,
    slug: n.slug,
    sid: n.id,
    provider: n.provider,
    sip: trunk
      ? {
          host: trunk.host,
          port: trunk.port ?? DEFAULT_SIP_PORT,
          transport: trunk.transport ?? 'udp',
          username: trunk.username ?? null,
          has_password: Boolean(trunk.password),
          uac_register_expires: trunk.uac_register_expires ?? DEFAULT_UAC_REGISTER_EXPIRES,
          allowed_addresses: trunk.allowed_addresses ?? [],
          inbound_username: trunk.inbound_username ?? null,
          has_inbound_password: Boolean(trunk.inbound_password),
        }
      : null,
    sip_registration:
      registration && trunk?.uac_enabled
        ? {
            state: registration.state,
            last_error: registration.error,
            expires_at: iso(registration.expiresAt),
            retry_at: iso(registration.retryAt),
            updated_at: toIso(registration.updatedAt),
          }
        : null,
    attached_agents: agents,
    created_at: toIso(n.createdAt),
    updated_at: toIso(n.updatedAt),
    number: n.number,
    assistants: agents,
    is_available: agents.length === 0,
    friendly_name: n.friendlyName,
    provider_name: n.providerName ?? (n.provider === 'sip' ? 'custom' : n.provider),
    sip_term_uri: trunk ? termUriOf(trunk) : '',
    sip_outbound_proxy: trunk?.outbound_proxy ?? null,
    sip_auth_username: trunk?.auth_username ?? null,
    uac_enabled: trunk?.uac_enabled ?? false,
    uac_register_expires: trunk ? (trunk.uac_register_expires ?? DEFAULT_UAC_REGISTER_EXPIRES) : null,
    is_voice_capable: true,
    is_sms_capable: SMS_PROVIDERS.includes(n.provider),
    iso_country: parsePhoneNumberFromString(n.number)?.country ?? '',
    locality: '',
    region: '',
    address_requirement: '',
    workspace_id: n.workspaceId,
    agency_workspace_id: workspace.parentId,
  };
}

type Presented = ReturnType<typeof presentNumber>;

/** The published record's fields, for the top level of the detail read (the published body is bare). */
function publishedFields(p: Presented) {
  return {
    slug: p.slug,
    phone_number: p.phone_number,
    sid: p.sid,
    created_at: p.created_at,
    updated_at: p.updated_at,
    assistants: p.assistants,
    is_available: p.is_available,
    friendly_name: p.friendly_name,
    provider_name: p.provider_name,
    sip_term_uri: p.sip_term_uri,
    sip_outbound_proxy: p.sip_outbound_proxy,
    sip_auth_username: p.sip_auth_username,
    uac_enabled: p.uac_enabled,
    uac_register_expires: p.uac_register_expires,
    is_voice_capable: p.is_voice_capable,
    is_sms_capable: p.is_sms_capable,
    iso_country: p.iso_country,
    locality: p.locality,
    region: p.region,
    address_requirement: p.address_requirement,
    workspace_id: p.workspace_id,
    agency_workspace_id: p.agency_workspace_id,
  };
}

const slugParam = (slug: string) => (slug.startsWith('+') ? slug.slice(1) : slug);

export const numberRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** Number changes, and attaching a number to an agent (src/agents). */
  numbers: NumberService;
}> = async (app, { store, numbers }) => {
  async function present(workspace: Workspace, n: NumberRecord): Promise<Presented> {
    const agents = await store.phoneNumbers.agentsOf(workspace.id, [n.id]);
    const registration = (await store.sipRegistrations.of([n.id])).get(n.id) ?? null;
    return presentNumber(n, agents.get(n.id) ?? [], workspace, registration);
  }

  app.post(
    '/custom-numbers',
    {
      schema: {
        tags: TAG,
        summary: 'Import a phone number into the workspace',
        body: ImportNumberBody,
        response: { 200: ImportedNumber, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { phone_number, friendly_name } = request.body;
      const number = requireE164(phone_number, ['body', 'phone_number']);
      const carrier = resolveCarrier(request.body, null);
      const created = await store.phoneNumbers.create(request.workspace.id, {
        number,
        provider: carrier.provider,
        sip: carrier.sip,
        providerName: carrier.providerName,
        friendlyName: friendly_name ?? '',
      });
      if (!created) {
        throw new ParleyError(`body.phone_number ${number} is already in the workspace`, {
          code: 'already_exists',
          status: 400,
          category: 'conflict',
          errors: [{ loc: ['body', 'phone_number'], msg: 'already imported', type: 'conflict' }],
        });
      }
      return ok({ ...presentNumber(created, [], request.workspace), key: created.id });
    },
  );

  app.get(
    '/numbers',
    {
      schema: {
        tags: TAG,
        summary: "List the workspace's numbers, newest first",
        querystring: ListNumbersQuery,
        response: { 200: okEnvelope(NumberPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const { limit, offset, is_available } = request.query;
      const page = await store.phoneNumbers.list(
        ws,
        limit,
        offset,
        is_available === undefined ? {} : { attached: !is_available },
      );
      const agents = await store.phoneNumbers.agentsOf(
        ws,
        page.items.map((n) => n.id),
      );
      const registrations = await store.sipRegistrations.of(page.items.map((n) => n.id));
      const items = page.items.map((n) =>
        presentNumber(n, agents.get(n.id) ?? [], request.workspace, registrations.get(n.id) ?? null),
      );
      return ok({
        pagination: { total_records: page.total, limit, offset },
        numbers: items,
        phone_numbers: items,
      });
    },
  );

  app.get(
    '/numbers/:slug',
    {
      schema: {
        tags: TAG,
        summary: 'Get one number',
        params: SlugParams,
        querystring: GetNumberQuery,
        response: { 200: NumberDetail, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const number = await store.phoneNumbers.getBySlug(request.workspace.id, slugParam(request.params.slug));
      if (!number) throw notFound(`phone number ${request.params.slug} not found`);
      const presented = await present(request.workspace, number);
      return { ...ok(presented), ...publishedFields(presented) };
    },
  );

  app.patch(
    '/numbers/:slug',
    {
      schema: {
        tags: TAG,
        summary: 'Update a number: its name, its carrier settings, or the agent it is attached to',
        params: SlugParams,
        body: UpdateNumberBody,
        response: { 200: okEnvelope(Type.Ref('PhoneNumber')), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const updated = await numbers.update(request.workspace.id, request.params.slug, {
        fields: (number) => {
          const carrier = touchesCarrier(body)
            ? resolveCarrier(body, {
                provider: number.provider,
                sip: readTrunk(number.sip),
                providerName: number.providerName,
              })
            : null;
          return carrier || body.friendly_name !== undefined
            ? {
                ...(carrier ?? {}),
                ...(body.friendly_name !== undefined ? { friendlyName: body.friendly_name } : {}),
              }
            : null;
        },
        agentId: body.model_id,
      });
      return ok(await present(request.workspace, updated));
    },
  );

  app.delete(
    '/numbers/:slug',
    {
      schema: {
        tags: TAG,
        summary: 'Delete a number (detaching it from every agent)',
        params: SlugParams,
        response: {
          200: okEnvelope(Type.Object({ answer: Type.String() })),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      await numbers.remove(request.workspace.id, request.params.slug);
      return ok({ answer: 'Phone number deleted' });
    },
  );
};
