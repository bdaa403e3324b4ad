import { Type } from '@sinclair/typebox';
import { WEBHOOK_STATUSES, WEBHOOK_TYPES } from '../../store/index.ts';
import { NonEmptyString, Nullable, StringEnum } from '../schemas/common.ts';

// Webhook logs (WIRE.md section 9): one row per webhook attempt, in a page list (section 1).

/** Milliseconds since the epoch; the bounds keep a value a valid JavaScript date. */
const EpochMs = (description: string) =>
  Type.Integer({ minimum: 0, maximum: 8_640_000_000_000_000, description });

/** The published lower-case methods, and the upper-case ones `http_method` shows. */
const HTTP_METHOD_FILTERS = [
  'get',
  'post',
  'put',
  'patch',
  'delete',
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
] as const;

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
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Part of the URL, the call id, the log id or the webhook id; ASCII letters in any case. Empty: no filter.',
    }),
  ),
  http_method: Type.Optional(
    StringEnum(HTTP_METHOD_FILTERS, {
      description:
        'Attempts made with this method, in either case: webhooks are POSTed; custom actions record no method.',
    }),
  ),
  assistant_id: Type.Optional(NonEmptyString(100, 'The agent (model_id) of the call.')),
  from_date: Type.Optional(
    EpochMs('Attempts made at or after this time: ms since the epoch, or an ISO 8601 date-time with a zone.'),
  ),
  to_date: Type.Optional(
    EpochMs(
      'Attempts made at or before this time: ms since the epoch, or an ISO 8601 date-time with a zone.',
    ),
  ),
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
    call_id: Type.String({ description: 'Empty when the attempt belongs to no call.' }),
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
    created_at: Type.String({
      format: 'date-time',
      description: 'When the attempt was recorded (it ended).',
    }),
    // The published list item's names for the same facts.
    request_timestamp: Type.String({
      format: 'date-time',
      description: 'When the request was sent (created_at - duration_ms).',
    }),
    model_id: Type.String({ description: 'assistant_id; empty when none.' }),
    webhook_url: Type.String({ description: 'The same as url.' }),
    http_method: Type.String({
      description: 'POST for webhooks; empty for custom actions (their method is not recorded).',
    }),
  },
  { title: 'Webhook log' },
);

/** One attempt read alone: the published detail's fields besides. */
export const WebhookLogDetail = Type.Composite(
  [
    WebhookLogRead,
    Type.Object({
      workspace_id: Type.String(),
      action_id: Type.String({ description: 'Empty: attempts record no action id.' }),
      response_timestamp: Type.String({
        description: 'When the answer came (created_at); empty without one.',
      }),
      error_message: Type.String({ description: 'error; empty when none.' }),
      request_payload: Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'request_body parsed, when it is a JSON object; else {}.',
        },
      ),
      response_payload: Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'response_body parsed, when it is a JSON object; else {}.',
        },
      ),
      request_query_params: Type.Record(Type.String(), Type.String(), {
        description: "The URL's query parameters.",
      }),
    }),
  ],
  { title: 'Webhook log (detail)' },
);

export const WebhookLogPage = Type.Object({
  items: Type.Array(WebhookLogRead),
  total: Type.Integer(),
  page_number: Type.Integer(),
  page_size: Type.Integer(),
});
