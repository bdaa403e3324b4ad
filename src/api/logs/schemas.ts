import { Type } from '@sinclair/typebox';
import { WEBHOOK_STATUSES, WEBHOOK_TYPES } from '../../store/index.ts';
import { NonEmptyString, Nullable, StringEnum } from '../schemas/common.ts';

// Webhook logs (WIRE.md section 9): one row per webhook attempt, in a page list (section 1).

/** Milliseconds since the epoch; the bounds keep a value a valid JavaScript date. */
const EpochMs = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description });

export const ListLogsQuery = Type.Object({
  page_number: Type.Integer({ minimum: 1, maximum: 2_147_483_647, default: 1, description: 'From 1.' }),
  page_size: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Items per page.' }),
  webhook_type: Type.Optional(StringEnum(WEBHOOK_TYPES)),
  status: Type.Optional(
    StringEnum(WEBHOOK_STATUSES, {
      description: 'success: delivered; pending: this attempt failed and a retry follows; failed: given up.',
    }),
  ),
  call_id: Type.Optional(NonEmptyString(100)),
  assistant_id: Type.Optional(NonEmptyString(100, 'The agent (model_id) of the call.')),
  from_date: Type.Optional(EpochMs('Attempts made at or after this time (ms).')),
  to_date: Type.Optional(EpochMs('Attempts made at or before this time (ms).')),
});

export const LogIdParams = Type.Object({ webhook_log_id: NonEmptyString(100) });

const Headers = Type.Record(Type.String(), Type.String());

export const WebhookLogRead = Type.Object(
  {
    webhook_log_id: Type.String(),
    webhook_id: Nullable(Type.String(), {
      description: 'The webhook-id header: the same on every attempt of one webhook.',
    }),
    webhook_type: Type.String(),
    status: Type.String(),
    call_id: Nullable(Type.String()),
    assistant_id: Nullable(Type.String()),
    url: Type.String(),
    request_headers: Headers,
    request_body: Type.String({ description: 'As sent (at most 64 KiB kept).' }),
    response_status_code: Nullable(Type.Integer(), {
      description: 'null when no answer came (timeout, connection refused or closed).',
    }),
    response_headers: Nullable(Headers),
    response_body: Nullable(Type.String(), { description: 'At most 64 KiB kept.' }),
    attempt_number: Type.Integer(),
    duration_ms: Type.Integer(),
    error: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Webhook log' },
);

export const WebhookLogPage = Type.Object({
  items: Type.Array(WebhookLogRead),
  total: Type.Integer(),
  page_number: Type.Integer(),
  page_size: Type.Integer(),
});
