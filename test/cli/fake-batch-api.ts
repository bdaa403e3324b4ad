import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A fake of the batch API for the CLI tests: POST /v2/calls/batch and GET /v2/calls/batch/{id}
// with the wire contract's envelopes and Bearer auth, on 127.0.0.1 with a free port.

export const KEY = 'pk_test_batch_cli';

export interface Seen {
  method: string;
  path: string;
  auth: string | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies as sent
  body: any;
}

export interface Fake {
  url: string;
  seen: Seen[];
  records: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export function errorBody(description: string, errors?: unknown[]) {
  return { detail: { status: 'error', description, ...(errors ? { errors } : {}) } };
}

/**
 * `failPost(n)` may answer the n-th POST (1-based) instead of the fake; `statuses` are the states
 * each GET moves the batch through (the last one sticks).
 */
export async function fakeApi(
  opts: {
    failPost?: (n: number) => { status: number; body: unknown; headers?: Record<string, string> } | undefined;
    statuses?: string[];
  } = {},
): Promise<Fake> {
  const seen: Seen[] = [];
  const records = new Map<string, Record<string, unknown>>();
  const gets = new Map<string, number>();
  let posts = 0;
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    for await (const part of req) text += String(part);
    const entry: Seen = {
      method: req.method ?? '',
      path: req.url ?? '',
      auth: req.headers.authorization,
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(entry);
    if (entry.auth !== `Bearer ${KEY}`)
      return send(res, 401, errorBody('Unauthorized: Invalid or expired token.'));
    if (entry.method === 'POST' && entry.path === '/v2/calls/batch') {
      const failed = opts.failPost?.(++posts);
      if (failed) return send(res, failed.status, failed.body, failed.headers);
      const { tasks, batch_call_id: id } = entry.body;
      if (!Array.isArray(tasks) || tasks.length < 1 || tasks.length > 10_000) {
        return send(res, 400, errorBody('tasks must hold 1 to 10000 items'));
      }
      let record = id === undefined ? undefined : records.get(id);
      if (id !== undefined && !record) return send(res, 404, errorBody(`batch ${id} not found`));
      if (!record) {
        const { model_id, from_phone_number, name, trigger_timestamp, reserved_concurrency } = entry.body;
        if (!model_id || !from_phone_number) return send(res, 400, errorBody('model_id is required'));
        const now = new Date().toISOString();
        record = {
          batch_call_id: randomUUID(),
          name: name ?? null,
          status: 'scheduled',
          model_id,
          from_phone_number,
          trigger_timestamp: trigger_timestamp ?? null,
          reserved_concurrency: reserved_concurrency ?? 0,
          call_time_window: null,
          total_task_count: 0,
          pending_count: 0,
          dispatched_count: 0,
          failed_count: 0,
          canceled_count: 0,
          created_at: now,
          updated_at: now,
          expires_at: now,
        };
        records.set(record.batch_call_id as string, record);
      }
      record.total_task_count = (record.total_task_count as number) + tasks.length;
      record.pending_count = (record.pending_count as number) + tasks.length;
      return send(res, 200, { status: 'ok', response: record });
    }
    const m = /^\/v2\/calls\/batch\/([^/]+)$/.exec(entry.path);
    if (entry.method === 'GET' && m) {
      const id = decodeURIComponent(m[1]!);
      const record = records.get(id);
      if (!record) return send(res, 404, errorBody(`batch ${id} not found`));
      const n = gets.get(id) ?? 0;
      gets.set(id, n + 1);
      const statuses = opts.statuses ?? [];
      const status = statuses[Math.min(n, statuses.length - 1)];
      if (status !== undefined) {
        const total = record.total_task_count as number;
        const dispatched = status === 'completed' ? total : Math.min(total, n);
        Object.assign(record, { status, dispatched_count: dispatched, pending_count: total - dispatched });
      }
      return send(res, 200, { status: 'ok', response: record });
    }
    return send(res, 404, errorBody('no such route'));
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, errorBody(String(err))));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    records,
    close: () => new Promise((res) => server.close(() => res())),
  };
}

export function seed(fake: Fake, total: number): string {
  const id = randomUUID();
  fake.records.set(id, {
    batch_call_id: id,
    name: 'seeded',
    status: 'scheduled',
    total_task_count: total,
    pending_count: total,
    dispatched_count: 0,
    failed_count: 0,
    canceled_count: 0,
  });
  return id;
}
