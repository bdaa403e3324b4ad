import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound, toIso } from '../../core/index.ts';
import type { Store, TwilioAccountRecord } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { StatusOnly, errorResponses, okEnvelope } from '../schemas/common.ts';

// A workspace's own Twilio account (docs/twilio.md, Parley's addition under /v2): calls on its
// `twilio` numbers go through it instead of the server's PARLEY_TWILIO_* account, so each
// subaccount (a workspace) can bring its own. The auth token is write-only: reads say whether one
// is set, as trunk passwords do.

const TAG = ['Twilio'];

const AccountRead = Type.Object(
  {
    source: Type.Union([Type.Literal('workspace'), Type.Literal('server'), Type.Literal('none')], {
      description:
        "Whose account this workspace's calls use: its own, the server's default (PARLEY_TWILIO_*), or none.",
    }),
    account_sid: Type.Union([Type.String(), Type.Null()], {
      description: "The workspace's own; null otherwise.",
    }),
    auth_token_set: Type.Boolean(),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'TwilioAccount', title: 'TwilioAccount' },
);

const AccountBody = Type.Object(
  {
    account_sid: Type.String({
      pattern: '^AC[0-9a-fA-F]{32}$',
      description: 'AC followed by 32 hex digits.',
    }),
    auth_token: Type.String({ minLength: 1, maxLength: 128, description: 'Write-only.' }),
  },
  { additionalProperties: false },
);

export const twilioAccountRoutes: FastifyPluginAsyncTypebox<{
  store: Store;
  /** The server has a default account (PARLEY_TWILIO_ACCOUNT_SID and _AUTH_TOKEN). */
  serverAccount: boolean;
}> = async (app, { store, serverAccount }) => {
  const present = (own: TwilioAccountRecord | null) =>
    ok(
      own
        ? {
            source: 'workspace' as const,
            account_sid: own.accountSid,
            auth_token_set: true,
            updated_at: toIso(own.updatedAt),
          }
        : {
            source: serverAccount ? ('server' as const) : ('none' as const),
            account_sid: null,
            auth_token_set: serverAccount,
            updated_at: null,
          },
    );

  app.get(
    '/twilio/account',
    {
      schema: {
        tags: TAG,
        summary: "The Twilio account this workspace's calls use",
        response: { 200: okEnvelope(AccountRead), ...errorResponses(401) },
      },
    },
    async (request) => present(await store.twilioAccounts.get(request.workspace.id)),
  );

  app.put(
    '/twilio/account',
    {
      schema: {
        tags: TAG,
        summary: "Set the workspace's own Twilio account",
        body: AccountBody,
        response: { 200: okEnvelope(AccountRead), ...errorResponses(400, 401) },
      },
    },
    async (request) =>
      present(
        await store.twilioAccounts.set(request.workspace.id, {
          accountSid: request.body.account_sid,
          authToken: request.body.auth_token,
        }),
      ),
  );

  app.delete(
    '/twilio/account',
    {
      schema: {
        tags: TAG,
        summary: "Remove the workspace's own Twilio account (its calls use the server's again)",
        response: { 200: StatusOnly, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      if (!(await store.twilioAccounts.remove(request.workspace.id)))
        throw notFound('this workspace has no Twilio account of its own');
      return { status: 'ok' as const };
    },
  );
};
