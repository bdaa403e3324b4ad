import { Type, type TBoolean } from '@sinclair/typebox';
import { NonEmptyString, PaginationSchema, StringEnum, limitOffsetQuery } from '../schemas/common.ts';

// Subaccounts (WIRE.md section 11): workspaces of their own, managed with the parent's keys.

export const MAX_CONCURRENT_CALLS_LIMIT = 10_000;

/** The permission names of the published API's subaccount record. */
export const SUBACCOUNT_PERMISSIONS = [
  'assistants',
  'knowledge_base',
  'actions',
  'workflows',
  'contacts',
  'phone_numbers',
  'inbound',
  'outbound',
  'widget',
  'chat',
  'logs',
  'simulations',
  'analytics',
] as const;

const Plan = StringEnum(['standard', 'enterprise'] as const, {
  description: "Default: the parent's plan. A standard parent cannot create enterprise subaccounts.",
});
const MaxConcurrentCalls = Type.Integer({
  minimum: 1,
  maximum: MAX_CONCURRENT_CALLS_LIMIT,
  description: "At most the parent's own maximum; default the parent's.",
});

// The published API names these `subaccount_name` and `concurrency`: both are accepted.
const SubaccountName = NonEmptyString(200, 'Also accepted as `subaccount_name`.');
const aliases = {
  subaccount_name: Type.Optional(NonEmptyString(200, 'The same as `name`.')),
  concurrency: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_CONCURRENT_CALLS_LIMIT,
      description: 'The same as `max_concurrent_calls`.',
    }),
  ),
};

export const CreateSubaccountBody = Type.Object({
  name: SubaccountName,
  max_concurrent_calls: Type.Optional(MaxConcurrentCalls),
  plan: Type.Optional(Plan),
  ...aliases,
});

export const UpdateSubaccountBody = Type.Object({
  name: Type.Optional(SubaccountName),
  ...aliases,
  max_concurrent_calls: Type.Optional(MaxConcurrentCalls),
  plan: Type.Optional(Plan),
  minutes_used: Type.Optional(
    Type.Number({ description: 'Only 0 is accepted: it resets the usage counter.' }),
  ),
});

export const SubaccountParams = Type.Object({ subaccount_id: NonEmptyString(100) });

export const ListSubaccountsQuery = Type.Object(limitOffsetQuery(20, 1000));

export const SubaccountRead = Type.Object(
  {
    subaccount_id: Type.String(),
    name: Type.String(),
    plan: Type.String(),
    max_concurrent_calls: Type.Integer(),
    minutes_used: Type.Integer({ description: 'Whole minutes of calls, a started minute counting as one.' }),
    seconds_used: Type.Integer({ description: 'Seconds of calls (minutes_used is this, in whole minutes).' }),
    // Published fields: the parent workspace, and what Parley does not restrict or sell.
    agency_id: Type.String({ description: 'The parent workspace.' }),
    permissions: Type.Object(
      Object.fromEntries(SUBACCOUNT_PERMISSIONS.map((p) => [p, Type.Boolean()])) as Record<
        (typeof SUBACCOUNT_PERMISSIONS)[number],
        TBoolean
      >,
      {
        description:
          'What the subaccount may manage: everything Parley has (subaccounts are not restricted); `workflows` is false (Parley has none).',
      },
    ),
    pricing_tiers: Type.Array(Type.Object({ pricing_tier_id: Type.String() }), {
      description: 'Always empty: Parley has no pricing tiers.',
    }),
    members: Type.Array(Type.Object({ email: Type.String(), status: Type.String() }), {
      description: 'Always empty: Parley workspaces have keys, not members.',
    }),
    max_minutes: Type.Null({ description: 'No minute allowance: always null (no limit).' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Subaccount', title: 'Subaccount' },
);

export const SubaccountPage = Type.Object({
  pagination: PaginationSchema,
  subaccounts: Type.Array(Type.Ref('Subaccount')),
});
