import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BATCH_LIFETIME_MS, validateCallTimeWindow } from '../../dialer/index.ts';
import { chooseOrigin } from '../../calls/index.ts';
import { ParleyError, invalidInput, isUuid, notFound, toIso, toVariableMap } from '../../core/index.ts';
import {
  type Batch,
  type BatchStatus,
  type BatchTaskWithCall,
  type NewTask,
  type Store,
} from '../../store/index.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import {
  BatchIdParams,
  BatchPage,
  BatchRecord,
  CreateBatchBody,
  ListBatchesQuery,
  ListTasksQuery,
  TaskPage,
} from './schemas.ts';

// Batch calls (spec "Batch calls" and its state table, WIRE.md section 5). Creating or appending
// stores every recipient or none; the dialer (src/dialer) does the calling.

const TAG = ['Batch calls'];

const closed400 = (description: string) =>
  new ParleyError(description, { code: 'conflict', status: 400, category: 'conflict' });

export function presentBatch(b: Batch) {
  return {
    batch_call_id: b.id,
    name: b.name,
    status: b.status,
    model_id: b.agentId,
    from_phone_number: b.fromPhoneNumber,
    trigger_timestamp: b.triggerAt,
    reserved_concurrency: b.reservedConcurrency,
    call_time_window: b.callTimeWindow ?? null,
    total_task_count: b.totalTaskCount,
    pending_count: b.pendingCount,
    dispatched_count: b.dispatchedCount,
    failed_count: b.failedCount,
    canceled_count: b.canceledCount,
    created_at: toIso(b.createdAt),
    updated_at: toIso(b.updatedAt),
    expires_at: toIso(b.expiresAt),
  };
}

function presentTask(t: BatchTaskWithCall) {
  return {
    task_id: t.id,
    id: t.clientId,
    to_phone_number: t.toPhoneNumber,
    lead_name: t.leadName,
    lead_email: t.leadEmail,
    custom_variables: t.customVariables,
    override_model_id: t.overrideModelId,
    status: t.status,
    error_message: t.errorMessage ?? '',
    call_id: t.callId,
    call_status: t.callStatus,
    end_call_reason: t.endCallReason,
    created_at: toIso(t.createdAt),
    updated_at: toIso(t.updatedAt),
  };
}

export interface BatchRoutesOptions {
  store: Store;
  /** Body limit of POST /calls/batch: 10,000 recipients take more than the default 1 MB. */
  batchBodyLimitBytes: number;
  /** Woken when a batch may have something to dial (created, appended, resumed). */
  dialer?: { wake(): void };
}

export const batchRoutes: FastifyPluginAsyncTypebox<BatchRoutesOptions> = async (app, options) => {
  const { store } = options;
  const wake = () => options.dialer?.wake();

  async function batchOf(workspaceId: string, id: string): Promise<Batch> {
    const batch = isUuid(id) ? await store.batches.get(workspaceId, id) : null;
    if (!batch) throw notFound(`batch ${id} not found`);
    return batch;
  }

  app.post(
    '/calls/batch',
    {
      bodyLimit: options.batchBodyLimitBytes,
      schema: {
        tags: TAG,
        summary: 'Create a batch of calls, or append recipients to one (batch_call_id)',
        body: CreateBatchBody,
        response: { 200: okEnvelope(BatchRecord), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const workspace = request.workspace;
      const body = request.body;
      const tasks: NewTask[] = body.tasks.map((t) => ({
        clientId: t.id ?? null,
        toPhoneNumber: t.to_phone_number,
        leadName: t.lead_name ?? null,
        leadEmail: t.lead_email ?? null,
        customVariables: t.custom_variables === undefined ? null : toVariableMap(t.custom_variables),
        overrideModelId: t.override_model_id ?? null,
      }));

      if (body.batch_call_id !== undefined) {
        const result = await store.batches.append(workspace.id, body.batch_call_id, tasks);
        if (!result.ok && result.reason === 'not_found')
          throw notFound(`batch ${body.batch_call_id} not found`);
        if (!result.ok && result.reason === 'closed')
          throw closed400(
            `batch ${body.batch_call_id} is ${result.batch?.status}; it takes no new recipients`,
          );
        if (!result.ok)
          throw invalidInput(
            `body.tasks: the batch has ${result.batch?.totalTaskCount} recipients; ${tasks.length} more would pass the limit of ${store.batches.maxTasks}`,
            ['body', 'tasks'],
            'limit',
          );
        wake();
        return ok(presentBatch(result.batch));
      }

      if (body.model_id === undefined)
        throw invalidInput('body.model_id is required to create a batch', ['body', 'model_id'], 'missing');
      if (body.from_phone_number === undefined)
        throw invalidInput(
          'body.from_phone_number is required to create a batch',
          ['body', 'from_phone_number'],
          'missing',
        );
      const { agent, number } = await chooseOrigin(store, workspace, 'batch', {
        agentId: body.model_id,
        from: body.from_phone_number,
      });
      const reserved = body.reserved_concurrency ?? 0;
      if (reserved >= workspace.maxConcurrentCalls)
        throw invalidInput(
          `body.reserved_concurrency must be lower than the workspace's max_concurrent_calls (${workspace.maxConcurrentCalls})`,
          ['body', 'reserved_concurrency'],
        );
      let window: unknown = null;
      if (body.call_time_window !== undefined && body.call_time_window !== null) {
        const checked = validateCallTimeWindow(body.call_time_window);
        if (!checked.ok)
          throw invalidInput(
            `body.call_time_window${checked.loc.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}: ${checked.message}`,
            ['body', 'call_time_window', ...checked.loc],
          );
        window = checked.window;
      }
      const batch = await store.batches.create(
        workspace.id,
        {
          agentId: agent.id,
          name: body.name ?? '',
          fromPhoneNumber: number.number,
          fromProvider: number.provider,
          triggerAt: body.trigger_timestamp ?? null,
          reservedConcurrency: reserved,
          callTimeWindow: window,
          lifetimeMs: BATCH_LIFETIME_MS,
        },
        tasks,
      );
      wake();
      return ok(presentBatch(batch));
    },
  );

  app.get(
    '/calls/batch',
    {
      schema: {
        tags: TAG,
        summary: 'List batches, newest first',
        querystring: ListBatchesQuery,
        response: { 200: okEnvelope(BatchPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const page = await store.batches.list(request.workspace.id, limit, offset);
      return ok({
        pagination: { total_records: page.total, limit, offset },
        batch_calls: page.batches.map(presentBatch),
      });
    },
  );

  app.get(
    '/calls/batch/:batch_call_id',
    {
      schema: {
        tags: TAG,
        summary: 'A batch: status and recipient counters',
        params: BatchIdParams,
        response: { 200: okEnvelope(BatchRecord), ...errorResponses(401, 404) },
      },
    },
    async (request) => ok(presentBatch(await batchOf(request.workspace.id, request.params.batch_call_id))),
  );

  app.get(
    '/calls/batch/:batch_call_id/tasks',
    {
      schema: {
        tags: TAG,
        summary: 'Every recipient of a batch in the order added, with its outcome',
        params: BatchIdParams,
        querystring: ListTasksQuery,
        response: { 200: okEnvelope(TaskPage), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const id = request.params.batch_call_id;
      const { limit, offset } = request.query;
      const status = request.query.status === 'pending' ? 'queued' : request.query.status;
      // The page is read alongside the batch (one round trip, not two), and shown only if the
      // batch is this workspace's: otherwise the 404 of batchOf.
      // The total comes from the batch's counters (kept with the recipients they count), not
      // from counting a million rows; only the few claimed ones are counted.
      const countClaimed = (status === 'queued' || status === 'claimed') && isUuid(id);
      const [batch, tasks, claimed] = await Promise.all([
        batchOf(request.workspace.id, id),
        isUuid(id) ? store.batches.listTasks(id, { limit, offset, ...(status ? { status } : {}) }) : [],
        countClaimed ? store.batches.countTasks(id, 'claimed') : 0,
      ]);
      const total =
        status === undefined
          ? batch.totalTaskCount
          : status === 'dispatched'
            ? batch.dispatchedCount
            : status === 'failed'
              ? batch.failedCount
              : status === 'canceled'
                ? batch.canceledCount
                : status === 'claimed'
                  ? claimed
                  : batch.pendingCount - claimed;
      return ok({ pagination: { total_records: total, limit, offset }, tasks: tasks.map(presentTask) });
    },
  );

  /** A state-table move: `from` the statuses it applies to; otherwise a 400 (or, for cancel, as is). */
  function move(
    path: string,
    summary: string,
    from: BatchStatus[],
    to: BatchStatus,
    refusal: 'error' | 'unchanged',
  ) {
    app.post(
      `/calls/batch/:batch_call_id/${path}`,
      {
        schema: {
          tags: TAG,
          summary,
          params: BatchIdParams,
          response: {
            200: okEnvelope(BatchRecord),
            ...errorResponses(...(refusal === 'error' ? [400, 401, 404] : [401, 404])),
          },
        },
      },
      async (request) => {
        const batch = await batchOf(request.workspace.id, request.params.batch_call_id);
        const moved = await store.batches.move(batch.workspaceId, batch.id, from, to);
        if (moved) {
          if (to === 'scheduled') wake();
          return ok(presentBatch(moved));
        }
        const current = (await store.batches.get(batch.workspaceId, batch.id)) ?? batch;
        if (refusal === 'unchanged') return ok(presentBatch(current));
        throw closed400(`batch ${batch.id} is ${current.status}; it cannot ${path}`);
      },
    );
  }
  move('pause', 'Pause dialing (calls in progress go on)', ['scheduled', 'in_progress'], 'paused', 'error');
  move('resume', 'Resume a paused batch (back to scheduled)', ['paused'], 'scheduled', 'error');
  move(
    'cancel',
    'Cancel: undialed recipients are never called; calls in progress go on',
    ['scheduled', 'in_progress', 'paused'],
    'canceled',
    'unchanged',
  );
};
