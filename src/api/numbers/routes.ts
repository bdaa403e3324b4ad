import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ParleyError, invalidInput, normalizeE164, notFound, toIso } from '../../core/index.ts';
import type { PhoneNumber, Store } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { ImportNumberBody, ListNumbersQuery, NumberPage, SlugParams } from './schemas.ts';

const TAG = ['Phone numbers'];

function presentNumber(n: PhoneNumber, agents: string[]) {
  const sip = n.sip as {
    host: string;
    port?: number;
    transport?: string;
    username?: string;
    password?: string;
    uac_register_expires?: number;
  } | null;
  return {
    phone_number: n.number,
    slug: n.slug,
    sid: n.id,
    provider: n.provider,
    sip: sip
      ? {
          host: sip.host,
          port: sip.port ?? 5060,
          transport: sip.transport ?? 'udp',
          username: sip.username ?? null,
          has_password: Boolean(sip.password),
          uac_register_expires: sip.uac_register_expires ?? 300,
        }
      : null,
    attached_agents: agents,
    created_at: toIso(n.createdAt),
    updated_at: toIso(n.updatedAt),
  };
}

const slugParam = (slug: string) => (slug.startsWith('+') ? slug.slice(1) : slug);

export const numberRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  app.post(
    '/custom-numbers',
    {
      schema: {
        tags: TAG,
        summary: 'Import a phone number into the workspace',
        body: ImportNumberBody,
        response: { 200: okEnvelope(Type.Ref('PhoneNumber')), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { phone_number, provider, sip } = request.body;
      const number = normalizeE164(phone_number);
      if (!number) {
        throw invalidInput(
          'body.phone_number is not a valid phone number with a country code',
          ['body', 'phone_number'],
          'phone_number',
        );
      }
      if (provider === 'sip' && !sip) {
        throw invalidInput('body.sip is required when provider is sip', ['body', 'sip'], 'missing');
      }
      if (provider !== 'sip' && sip) {
        throw invalidInput('body.sip is only accepted when provider is sip', ['body', 'sip'], 'not_accepted');
      }
      const created = await store.phoneNumbers.create(request.workspace.id, {
        number,
        provider,
        sip: sip ?? null,
      });
      if (!created) {
        throw new ParleyError(`body.phone_number ${number} is already in the workspace`, {
          code: 'already_exists',
          status: 400,
          category: 'conflict',
          errors: [{ loc: ['body', 'phone_number'], msg: 'already imported', type: 'conflict' }],
        });
      }
      return ok(presentNumber(created, []));
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
      const { limit, offset } = request.query;
      const page = await store.phoneNumbers.list(ws, limit, offset);
      const agents = await store.phoneNumbers.agentsOf(
        ws,
        page.items.map((n) => n.id),
      );
      return ok({
        pagination: { total_records: page.total, limit, offset },
        numbers: page.items.map((n) => presentNumber(n, agents.get(n.id) ?? [])),
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
        response: { 200: okEnvelope(Type.Ref('PhoneNumber')), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const ws = request.workspace.id;
      const number = await store.phoneNumbers.getBySlug(ws, slugParam(request.params.slug));
      if (!number) throw notFound(`phone number ${request.params.slug} not found`);
      const agents = await store.phoneNumbers.agentsOf(ws, [number.id]);
      return ok(presentNumber(number, agents.get(number.id) ?? []));
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
      const slug = slugParam(request.params.slug);
      const deleted = await store.transaction((repos) =>
        repos.phoneNumbers.delete(request.workspace.id, slug),
      );
      if (!deleted) throw notFound(`phone number ${request.params.slug} not found`);
      return ok({ answer: 'Phone number deleted' });
    },
  );
};
