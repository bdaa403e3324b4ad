import { Type } from '@sinclair/typebox';
import { NonEmptyString, PaginationSchema, StringEnum, limitOffsetQuery } from '../schemas/common.ts';

// Subaccounts (WIRE.md section 11): workspaces of their own, managed with the parent's keys.

export const MAX_CONCURRENT_CALLS_LIMIT = 10_000;

const Plan = StringEnum(['standard', 'enterprise'] as const, {
  description: "Default: the parent's plan. A standard parent cannot create enterprise subaccounts.",
});
const MaxConcurrentCalls = Type.Integer({
  minimum: 1,
  maximum: MAX_CONCURRENT_CALLS_LIMIT,
  description: "At most the parent's own maximum; default the parent's.",
});

export const CreateSubaccountBody = Type.Object({
  name: NonEmptyString(200),
  max_concurrent_calls: Type.Optional(MaxConcurrentCalls),
  plan: Type.Optional(Plan),
});

export const UpdateSubaccountBody = Type.Object({
  name: Type.Optional(NonEmptyString(200)),
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
    minutes_used: Type.Number(),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Subaccount', title: 'Subaccount' },
);

export const SubaccountPage = Type.Object({
  pagination: PaginationSchema,
  subaccounts: Type.Array(Type.Ref('Subaccount')),
});
