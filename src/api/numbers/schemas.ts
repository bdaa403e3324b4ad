import { Type, type Static } from '@sinclair/typebox';
import { NonEmptyString, PaginationSchema, StringEnum, limitOffsetQuery } from '../schemas/common.ts';

// The workspace's inventory of phone numbers (WIRE.md section 3).

export const PROVIDERS = ['sim', 'sip', 'twilio', 'telnyx', 'custom'] as const;

export const SipSettings = Type.Object({
  host: NonEmptyString(255, 'SIP trunk host name or address.'),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65_535, default: 5060 })),
  transport: Type.Optional(StringEnum(['udp', 'tcp', 'tls'] as const)),
  username: Type.Optional(Type.String({ maxLength: 255 })),
  password: Type.Optional(Type.String({ maxLength: 255, description: 'Write-only; never returned.' })),
  uac_register_expires: Type.Optional(Type.Integer({ minimum: 60, maximum: 3600, default: 300 })),
});

export const ImportNumberBody = Type.Object({
  phone_number: NonEmptyString(32, 'The number with its country code (E.164 preferred).'),
  provider: StringEnum(PROVIDERS, {
    description: 'Carrier that serves the number; `sim` is the built-in simulated carrier.',
  }),
  sip: Type.Optional(SipSettings),
});
export type ImportNumberBody = Static<typeof ImportNumberBody>;

export const SlugParams = Type.Object({ slug: NonEmptyString(33, 'The number without its leading +.') });

export const ListNumbersQuery = Type.Object(limitOffsetQuery(20, 1000));

export const NumberRead = Type.Object(
  {
    phone_number: Type.String(),
    slug: Type.String(),
    sid: Type.String(),
    provider: Type.String(),
    sip: Type.Union([
      Type.Object({
        host: Type.String(),
        port: Type.Integer(),
        transport: Type.String(),
        username: Type.Union([Type.String(), Type.Null()]),
        has_password: Type.Boolean(),
        uac_register_expires: Type.Integer(),
      }),
      Type.Null(),
    ]),
    attached_agents: Type.Array(Type.String(), { description: 'model_ids of the agents it is attached to.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'PhoneNumber', title: 'Phone number' },
);

export const NumberPage = Type.Object({
  pagination: PaginationSchema,
  numbers: Type.Array(Type.Ref('PhoneNumber')),
});
