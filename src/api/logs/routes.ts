import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput, notFound, toIso } from '../../core/index.ts';
import type { Store, WebhookLog } from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { ListLogsQuery, LogIdParams, WebhookLogPage, WebhookLogRead } from './schemas.ts';

// Webhook logs (WIRE.md section 9): every webhook attempt, newest first, scoped to the workspace.

const TAG = ['Webhook logs'];

export function presentWebhookLog(log: WebhookLog) {
  return {
    webhook_log_id: log.id,
    webhook_id: log.deliveryId,
    webhook_type: log.webhookType,
    status: log.status,
    call_id: log.callId,
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
  };
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
        response: { 200: okEnvelope(WebhookLogRead), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const log = await store.webhooks.getLog(request.workspace.id, request.params.webhook_log_id);
      if (!log) throw notFound(`webhook log ${request.params.webhook_log_id} not found`);
      return ok(presentWebhookLog(log));
    },
  );
};
