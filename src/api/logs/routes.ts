import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput, notFound, toIso } from '../../core/index.ts';
import { httpMethodOfLog, type Store, type WebhookLog, type WebhookLogFilter } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { ListLogsQuery, LogIdParams, WebhookLogDetail, WebhookLogPage } from './schemas.ts';

// Webhook logs (WIRE.md section 9): every webhook attempt, newest first, scoped to the workspace.

const TAG = ['Webhook logs'];

export function presentWebhookLog(log: WebhookLog) {
  return {
    webhook_log_id: log.id,
    webhook_id: log.deliveryId,
    webhook_type: log.webhookType,
    status: log.status,
    call_id: log.callId ?? '',
    assistant_id: log.assistantId,
    url: log.url,
    request_headers: log.requestHeaders,
    request_body: log.requestBody,
    response_status_code: log.responseStatusCode,
    response_headers: log.responseHeaders,
    response_body: log.responseBody,
    attempt_number: log.attemptNumber,
    duration_ms: log.durationMs,
    error: log.error,
    created_at: toIso(log.createdAt),
    request_timestamp: toIso(Math.max(0, log.createdAt - log.durationMs)),
    model_id: log.assistantId ?? '',
    webhook_url: log.url,
    http_method: httpMethodOfLog(log.webhookType),
  };
}

/** A body as the published detail's payload objects: the JSON object it holds, else {}. */
function payloadObject(body: string | null): Record<string, unknown> {
  if (body === null || !body.startsWith('{')) return {};
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {}; // not JSON, or cut at the 64 KiB kept
  }
}

function queryParams(url: string): Record<string, string> {
  try {
    return Object.fromEntries(new URL(url).searchParams);
  } catch {
    return {};
  }
}

export function presentWebhookLogDetail(log: WebhookLog) {
  return {
    ...presentWebhookLog(log),
    workspace_id: log.workspaceId,
    action_id: '',
    response_timestamp: log.responseStatusCode === null ? '' : toIso(log.createdAt),
    error_message: log.error ?? '',
    request_payload: payloadObject(log.requestBody),
    response_payload: payloadObject(log.responseBody),
    request_query_params: queryParams(log.url),
  };
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** The date's day exists in its month (Date.parse takes 2026-02-30 as March 2). */
function realDay(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * `from_date` and `to_date` as ms since the epoch (Parley's form) or as an ISO 8601 date-time with
 * a zone (the published form; a `+` left unencoded arrives as a space). Digits pass through to
 * the schema; anything else is a 400 naming the field.
 */
function isoDatesToMs(query: Record<string, unknown>): void {
  for (const field of ['from_date', 'to_date']) {
    const raw = query[field];
    if (typeof raw !== 'string' || /^\d+$/.test(raw)) continue;
    const text = raw.replace(/ (\d{2}:?\d{2})$/, '+$1');
    const ms = ISO_DATE_TIME.test(text) && realDay(text) ? Date.parse(text) : NaN;
    if (!Number.isFinite(ms) || ms < 0) {
      throw invalidInput(
        `query.${field} must be milliseconds since the epoch or an ISO 8601 date-time with a time zone`,
        ['query', field],
      );
    }
    query[field] = ms;
  }
}

export const logRoutes: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  app.get(
    '/logs',
    {
      schema: {
        tags: TAG,
        summary: 'List webhook attempts, newest first',
        querystring: ListLogsQuery,
        response: { 200: okEnvelope(WebhookLogPage), ...errorResponses(400, 401) },
      },
      preValidation: async (request) => {
        isoDatesToMs(request.query as Record<string, unknown>);
      },
    },
    async (request) => {
      const q = request.query;
      if (q.from_date !== undefined && q.to_date !== undefined && q.from_date > q.to_date) {
        throw invalidInput('query.to_date must not be before query.from_date', ['query', 'to_date']);
      }
      const page = await store.webhooks.listLogs(
        request.workspace.id,
        {
          webhookType: q.webhook_type,
          status: q.status,
          callId: q.call_id,
          assistantId: q.assistant_id,
          fromMs: q.from_date,
          toMs: q.to_date,
          ...(q.search ? { search: q.search } : {}),
          ...(q.http_method
            ? { httpMethod: q.http_method.toUpperCase() as NonNullable<WebhookLogFilter['httpMethod']> }
            : {}),
        },
        q.page_number,
        q.page_size,
      );
      return ok({
        items: page.items.map(presentWebhookLog),
        total: page.total,
        page_number: q.page_number,
        page_size: q.page_size,
      });
    },
  );

  app.get(
    '/logs/:webhook_log_id',
    {
      schema: {
        tags: TAG,
        summary: 'One webhook attempt: request and response headers and bodies',
        params: LogIdParams,
        response: { 200: okEnvelope(WebhookLogDetail), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const log = await store.webhooks.getLog(request.workspace.id, request.params.webhook_log_id);
      if (!log) throw notFound(`webhook log ${request.params.webhook_log_id} not found`);
      return ok(presentWebhookLogDetail(log));
    },
  );
};
