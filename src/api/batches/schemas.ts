import { Type } from '@sinclair/typebox';
import {
  CustomVariablesInput,
  NonEmptyString,
  Nullable,
  PaginationSchema,
  StringEnum,
} from '../schemas/common.ts';

// Batch calls (spec "Batch calls", WIRE.md section 5).

export const MAX_TASKS_PER_REQUEST = 10_000;
export const BATCH_STATUSES = ['scheduled', 'in_progress', 'paused', 'completed', 'canceled'] as const;
export const TASK_STATUSES = ['queued', 'claimed', 'dispatched', 'failed', 'canceled'] as const;
/** `pending` is accepted as an alias of `queued` in the filter. */
export const TASK_FILTERS = [...TASK_STATUSES, 'pending'] as const;

export const TaskInput = Type.Object({
  id: Type.Optional(Type.String({ maxLength: 200, description: 'Your id for the recipient.' })),
  to_phone_number: NonEmptyString(64, 'The number to call (E.164 preferred).'),
  lead_name: Type.Optional(Type.String({ maxLength: 200 })),
  lead_email: Type.Optional(Type.String({ maxLength: 320 })),
  custom_variables: Type.Optional(CustomVariablesInput("Values for this recipient's `{placeholders}`.")),
  override_model_id: Type.Optional(NonEmptyString(100, 'Another agent for this recipient.')),
});

export const CreateBatchBody = Type.Object({
  tasks: Type.Array(TaskInput, { minItems: 1, maxItems: MAX_TASKS_PER_REQUEST }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  model_id: Type.Optional(NonEmptyString(100, 'The agent (when creating).')),
  from_phone_number: Type.Optional(NonEmptyString(32, 'Caller id attached to the agent (when creating).')),
  batch_call_id: Type.Optional(
    Type.String({
      format: 'uuid',
      maxLength: 36,
      description: 'Append to this batch; creation fields are then ignored.',
    }),
  ),
  trigger_timestamp: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description: 'Dial not before (ms).' }),
  ),
  reserved_concurrency: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100_000, description: 'Slots kept for calls outside the batch.' }),
  ),
  call_time_window: Type.Optional(Type.Unknown({ description: 'When dialing may happen.' })),
});

export const BatchRecord = Type.Object({
  batch_call_id: Type.String(),
  name: Type.String(),
  status: StringEnum(BATCH_STATUSES),
  model_id: Type.String(),
  from_phone_number: Type.String(),
  trigger_timestamp: Nullable(Type.Integer()),
  reserved_concurrency: Type.Integer(),
  call_time_window: Type.Unknown(),
  total_task_count: Type.Integer(),
  pending_count: Type.Integer(),
  dispatched_count: Type.Integer(),
  failed_count: Type.Integer(),
  canceled_count: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String(),
});

export const BatchIdParams = Type.Object({ batch_call_id: NonEmptyString(100) });

export const ListBatchesQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
});

export const ListTasksQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
  status: Type.Optional(StringEnum(TASK_FILTERS)),
});

export const TaskRecord = Type.Object({
  task_id: Type.String(),
  id: Nullable(Type.String()),
  to_phone_number: Type.String(),
  lead_name: Nullable(Type.String()),
  lead_email: Nullable(Type.String()),
  custom_variables: Nullable(Type.Record(Type.String(), Type.Unknown())),
  override_model_id: Nullable(Type.String()),
  status: StringEnum(TASK_STATUSES),
  error_message: Type.String({ description: 'Why the recipient failed before dialing; empty otherwise.' }),
  call_id: Nullable(Type.String()),
  call_status: Nullable(Type.String()),
  end_call_reason: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const BatchPage = Type.Object({ pagination: PaginationSchema, batch_calls: Type.Array(BatchRecord) });
export const TaskPage = Type.Object({ pagination: PaginationSchema, tasks: Type.Array(TaskRecord) });
