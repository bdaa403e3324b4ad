import { Type, type Static } from '@sinclair/typebox';
import {
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
  limitOffsetQuery,
  okEnvelope,
} from '../schemas/common.ts';
import { PROVIDERS, PROVIDER_NAMES } from './trunk.ts';

// The workspace's inventory of phone numbers (WIRE.md section 3), with the fields of the published
// API next to Parley's own (docs/api-notes.md, "Phone numbers").

const AllowedAddresses = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description:
    'Who may call in through this trunk: IP addresses or CIDR ranges. None given: the addresses the trunk host resolves to (docs/sip.md).',
});

export const SipSettings = Type.Object({
  host: NonEmptyString(255, 'SIP trunk host name or address.'),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535, default: 5060 })),
  transport: Type.Optional(StringEnum(['udp', 'tcp', 'tls'] as const)),
  username: Type.Optional(Type.String({ maxLength: 255 })),
  password: Type.Optional(Type.String({ maxLength: 255, description: 'Write-only; never returned.' })),
  uac_register_expires: Type.Optional(Type.Integer({ minimum: 60, maximum: 3600, default: 300 })),
  allowed_addresses: Type.Optional(AllowedAddresses),
  inbound_username: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Digest user a caller off the allow-list may authenticate as.',
    }),
  ),
  inbound_password: Type.Optional(
    Type.String({ maxLength: 255, description: 'Write-only; never returned.' }),
  ),
});

const Setting = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));

/** The published body's carrier fields, flat; shared by import and update. */
const publishedCarrierFields = {
  friendly_name: Setting('A human-readable name.'),
  provider_name: Type.Optional(
    StringEnum(PROVIDER_NAMES, {
      description:
        'Published provider name. The number becomes a SIP trunk number (provider `sip`); `ringcx` and `zoom` need no termination_uri.',
    }),
  ),
  termination_uri: Setting(
    'SIP domain or URI calls are sent to (`host`, `sip:host:port;transport=tls`...); sets `sip.host`, `sip.port`, `sip.transport`.',
  ),
  sip_term_uri: Setting('Alias of termination_uri.'),
  trunk_username: Setting('SIP trunk username (`sip.username`).'),
  trunk_pwd: Setting('SIP trunk password (`sip.password`); write-only, never returned.'),
  sip_outbound_proxy: Setting('Outbound proxy for calls and registration.'),
  sip_auth_username: Setting('Registration auth username, when it differs from trunk_username.'),
  uac_enabled: Type.Optional(
    Type.Boolean({ description: 'Register with the trunk; needs trunk_username and trunk_pwd.' }),
  ),
  sip_allowed_addresses: Type.Optional(AllowedAddresses),
  sip_inbound_username: Setting('Digest user a caller off the allow-list may authenticate as (Parley).'),
  sip_inbound_password: Setting('Its password; write-only, never returned (Parley).'),
  uac_register_expires: Type.Optional(
    Type.Integer({ minimum: 60, maximum: 3600, description: 'Registration refresh, seconds (default 300).' }),
  ),
};

const parleyCarrierFields = {
  provider: Type.Optional(
    StringEnum(PROVIDERS, {
      description:
        'Carrier that serves the number; `sim` is the built-in simulated carrier. Required unless provider_name or termination_uri is given.',
    }),
  ),
  sip: Type.Optional(SipSettings),
};

export const ImportNumberBody = Type.Object(
  {
    phone_number: NonEmptyString(32, 'The number with its country code (E.164 preferred).'),
    ...parleyCarrierFields,
    workspace_id: Setting('Accepted and ignored: the API key decides the workspace.'),
    ...publishedCarrierFields,
  },
  {
    // Without a provider (Parley) or provider_name / termination URI (published), nothing says
    // which carrier serves the number: name both ways of saying it.
    if: {
      not: {
        anyOf: [
          { required: ['provider'] },
          { required: ['provider_name'] },
          { required: ['termination_uri'] },
          { required: ['sip_term_uri'] },
        ],
      },
    },
    then: { required: ['provider', 'termination_uri'] },
  },
);
export type ImportNumberBody = Static<typeof ImportNumberBody>;

export const UpdateNumberBody = Type.Object({
  ...parleyCarrierFields,
  ...publishedCarrierFields,
  model_id: Type.Optional(
    NonEmptyString(
      255,
      'Attaches the number to this agent, as PUT /assistants/{model_id}/phone_numbers does (Parley).',
    ),
  ),
});
export type UpdateNumberBody = Static<typeof UpdateNumberBody>;

export const SlugParams = Type.Object({ slug: NonEmptyString(33, 'The number without its leading +.') });

const WorkspaceQuery = {
  workspace: Type.Optional(
    Type.String({ description: 'Accepted and ignored: the API key decides the workspace.' }),
  ),
};

export const ListNumbersQuery = Type.Object({
  ...limitOffsetQuery(20, 1000),
  is_available: Type.Optional(
    Type.Boolean({ description: 'true: only numbers attached to no agent; false: only attached ones.' }),
  ),
  ...WorkspaceQuery,
});

export const GetNumberQuery = Type.Object(WorkspaceQuery);

/** Fields both Parley's record and the published one have. */
const sharedProps = {
  phone_number: Type.String(),
  slug: Type.String(),
  sid: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

/** The published record's other fields. */
const publishedExtraProps = {
  assistants: Type.Array(Type.String(), { description: 'model_ids of the attached agents.' }),
  is_available: Type.Boolean({ description: 'Attached to no agent (free for inbound calls).' }),
  friendly_name: Type.String(),
  provider_name: Type.String(),
  sip_term_uri: Type.String({ description: "'' when the number is not a SIP trunk number." }),
  sip_outbound_proxy: Nullable(Type.String()),
  sip_auth_username: Nullable(Type.String()),
  uac_enabled: Type.Boolean(),
  uac_register_expires: Nullable(Type.Integer(), { description: 'null when not a SIP trunk number.' }),
  is_voice_capable: Type.Boolean(),
  is_sms_capable: Type.Boolean(),
  iso_country: Type.String(),
  locality: Type.String(),
  region: Type.String(),
  address_requirement: Type.String(),
  workspace_id: Type.String(),
  agency_workspace_id: Nullable(Type.String(), { description: 'The parent workspace of a subaccount.' }),
};

/** The published record (the bare body of the published GET /numbers/{slug}). */
const publishedProps = { ...sharedProps, ...publishedExtraProps };

const numberProps = {
  phone_number: sharedProps.phone_number,
  slug: sharedProps.slug,
  sid: sharedProps.sid,
  provider: Type.String(),
  sip: Type.Union([
    Type.Object({
      host: Type.String(),
      port: Type.Integer(),
      transport: Type.String(),
      username: Type.Union([Type.String(), Type.Null()]),
      has_password: Type.Boolean(),
      uac_register_expires: Type.Integer(),
      allowed_addresses: Type.Array(Type.String()),
      inbound_username: Nullable(Type.String()),
      has_inbound_password: Type.Boolean(),
    }),
    Type.Null(),
  ]),
  sip_registration: Nullable(
    Type.Object({
      state: StringEnum(['registering', 'registered', 'failed'] as const),
      last_error: Nullable(Type.String()),
      expires_at: Nullable(Type.String({ format: 'date-time' })),
      retry_at: Nullable(Type.String({ format: 'date-time' })),
      updated_at: Type.String({ format: 'date-time' }),
    }),
    { description: 'Registration with the trunk (uac_enabled numbers); null when none was tried yet.' },
  ),
  attached_agents: Type.Array(Type.String(), { description: 'model_ids of the agents it is attached to.' }),
  created_at: sharedProps.created_at,
  updated_at: sharedProps.updated_at,
  number: Type.String({ description: 'The number (E.164), as the published list items name it.' }),
  ...publishedExtraProps,
};

export const NumberRead = Type.Object(numberProps, { $id: 'PhoneNumber', title: 'Phone number' });

/** Import answers the record plus the published `key` (the number's id). */
export const ImportedNumber = okEnvelope(
  Type.Object({ ...numberProps, key: Type.String({ format: 'uuid', description: 'Same as sid.' }) }),
);

/** The record enveloped, and the published fields again at the top level (the published body is bare). */
export const NumberDetail = okEnvelope(Type.Ref('PhoneNumber'), publishedProps);

export const NumberPage = Type.Object({
  pagination: PaginationSchema,
  numbers: Type.Array(Type.Ref('PhoneNumber')),
  phone_numbers: Type.Array(Type.Ref('PhoneNumber'), { description: 'The same items (published name).' }),
});
