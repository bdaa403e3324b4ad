import { unwrap, type Parley } from './client.ts';
import { eachByCursor, eachByOffset } from './paging.ts';
import type { paths } from './schema.ts';

// Every item of the lists people page through most, as async iterators:
// `for await (const call of allCalls(parley, { call_status: 'completed' })) ...`

type Query<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? Omit<NonNullable<Q>, 'limit' | 'offset' | 'cursor'>
  : never;

export function allAgents(parley: Parley, query: Query<'/v2/assistants/'> = {}, pageSize?: number) {
  return eachByOffset(async (page) => {
    const r = await unwrap(parley.api.GET('/v2/assistants/', { params: { query: { ...query, ...page } } }));
    return { items: r.assistants, total: r.pagination.total_records };
  }, pageSize);
}

export function allCalls(parley: Parley, query: Query<'/v2/calls'> = {}, pageSize?: number) {
  return eachByOffset(async (page) => {
    const r = await unwrap(parley.api.GET('/v2/calls', { params: { query: { ...query, ...page } } }));
    return { items: r.calls, total: r.pagination.total_records };
  }, pageSize);
}

export function allBatches(parley: Parley, pageSize?: number) {
  return eachByOffset(async (page) => {
    const r = await unwrap(parley.api.GET('/v2/calls/batch', { params: { query: page } }));
    return { items: r.batch_calls, total: r.pagination.total_records };
  }, pageSize);
}

export function allBatchTasks(
  parley: Parley,
  batchCallId: string,
  query: Query<'/v2/calls/batch/{batch_call_id}/tasks'> = {},
  pageSize?: number,
) {
  return eachByOffset(async (page) => {
    const r = await unwrap(
      parley.api.GET('/v2/calls/batch/{batch_call_id}/tasks', {
        params: { path: { batch_call_id: batchCallId }, query: { ...query, ...page } },
      }),
    );
    return { items: r.tasks, total: r.pagination.total_records };
  }, pageSize);
}

export function allChats(parley: Parley, query: Query<'/v2/chat'> = {}, pageSize = 100) {
  return eachByCursor(async (cursor) => {
    const r = await unwrap(
      parley.api.GET('/v2/chat', {
        params: { query: { ...query, limit: pageSize, ...(cursor ? { cursor } : {}) } },
      }),
    );
    return { items: r.chats, next: r.has_more ? r.next_cursor : null };
  });
}
