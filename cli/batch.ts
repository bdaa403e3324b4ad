import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  chunkRecipients,
  createParley,
  MAX_REQUEST_BYTES,
  MAX_TASKS_PER_BATCH,
  MAX_TASKS_PER_REQUEST,
  ParleyError,
  unwrap,
  type Chunk,
  type Parley,
  type paths,
  type Task,
} from '../sdk/index.ts';
import { readRecipientsFile } from './csv.ts';
import { bar, count, percent, rate, StatusLine } from './progress.ts';

// `parley batch upload` and `parley batch watch`: clients of the batch API (POST /v2/calls/batch,
// GET /v2/calls/batch/{id}) through the typed SDK (sdk/), so they work against any Parley server,
// local or remote.

/** A mistake in the command line; runBatch hands it to the CLI's own UsageError (exit code 2). */
export class BatchUsageError extends Error {
  override name = 'UsageError';
}
const UsageError = BatchUsageError;

const RETRY_DELAY_MS = 500;
const MAX_RETRY_AFTER_MS = 30_000;
const REQUEST_TIMEOUT_MS = 120_000;
const WATCH_MAX_FAILURES = 5;
const FINAL_STATUSES = new Set(['completed', 'canceled']);

/** A batch as the API returns it (POST /v2/calls/batch and GET /v2/calls/batch/{id} alike). */
export type BatchRecord =
  paths['/v2/calls/batch/{batch_call_id}']['get']['responses'][200]['content']['application/json']['response'];

/** The body of POST /v2/calls/batch, as the SDK types it. */
export type CreateBatchBody = paths['/v2/calls/batch']['post']['requestBody']['content']['application/json'];

// ---- HTTP (through the SDK) ----

export interface Target {
  url: string;
  key: string;
}

/**
 * The server and key: --url, else PARLEY_URL, else http://HOST:PORT (127.0.0.1:8080); --key, else
 * PARLEY_API_KEY, else the bootstrap key the server saved under PARLEY_DATA_DIR (./data).
 */
export function resolveTarget(
  flags: { url?: string | undefined; key?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Target {
  let url = flags.url || env.PARLEY_URL;
  if (!url) {
    const host = env.HOST || '127.0.0.1';
    const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
    url = `http://${shown.includes(':') && !shown.startsWith('[') ? `[${shown}]` : shown}:${env.PORT || 8080}`;
  }
  let protocol = '';
  try {
    protocol = new URL(url).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new UsageError(`--url must be an http:// or https:// URL, got "${url}"`);
  }
  url = url.replace(/\/+$/, '').replace(/\/v2$/, '');
  let key = flags.key || env.PARLEY_API_KEY;
  if (!key) {
    const file = resolve(env.PARLEY_DATA_DIR || './data', 'bootstrap-api-key');
    if (existsSync(file)) key = readFileSync(file, 'utf8').trim();
  }
  if (!key) {
    throw new Error(
      'no API key: pass --key, set PARLEY_API_KEY, or run where PARLEY_DATA_DIR/bootstrap-api-key exists',
    );
  }
  return { url, key };
}

/** The batch routes of the SDK's typed client; failures are the SDK's ParleyError. */
export class ApiClient {
  private readonly parley: Parley;

  constructor(target: Target, timeoutMs = REQUEST_TIMEOUT_MS) {
    this.parley = createParley({ baseUrl: target.url, apiKey: target.key, timeoutMs });
  }

  /** The server's address, without a trailing slash. */
  get url(): string {
    return this.parley.baseUrl;
  }

  /** POST /v2/calls/batch: creates a batch, or appends to the one `body.batch_call_id` names. */
  createBatch(body: CreateBatchBody): Promise<BatchRecord> {
    return unwrap(this.parley.api.POST('/v2/calls/batch', { body }));
  }

  /** GET /v2/calls/batch/{batch_call_id}: the batch's status and counters. */
  getBatch(batchCallId: string): Promise<BatchRecord> {
    return unwrap(
      this.parley.api.GET('/v2/calls/batch/{batch_call_id}', {
        params: { path: { batch_call_id: batchCallId } },
      }),
    );
  }
}

/** How long to wait before trying again: the server's Retry-After (at most 30 s), else `fallbackMs`. */
export function retryDelayMs(err: ParleyError, fallbackMs: number): number {
  return err.retryAfterMs === undefined ? fallbackMs : Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS);
}

/** `send()` tried once more after a network error, a 5xx or a 429. */
export async function withRetry<T>(
  send: () => Promise<T>,
  onRetry?: (err: ParleyError) => void,
  delayMs = RETRY_DELAY_MS,
): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!(err instanceof ParleyError) || !err.retryable) throw err;
    onRetry?.(err);
    await sleep(retryDelayMs(err, delayMs));
    return send();
  }
}

/** `503 store unavailable`, or `cannot reach URL: ECONNREFUSED` when no answer came. */
function summary(err: ParleyError, url: string): string {
  return err.status === undefined ? `cannot reach ${url}: ${err.description}` : err.summary;
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

/** The batch settings sent with the first request when it creates the batch. */
export type CreateParams = Required<Pick<CreateBatchBody, 'model_id' | 'from_phone_number'>> &
  Pick<CreateBatchBody, 'name' | 'trigger_timestamp' | 'reserved_concurrency'>;

export type BatchRequestBody = { tasks: Task[] } & (CreateParams | { batch_call_id: string });

export interface SendInfo {
  /** 0-based request number. */
  index: number;
  chunk: Chunk;
  /** Recipients sent before this request. */
  sentBefore: number;
  /** The batch, once known (always, when appending). */
  batchCallId: string | undefined;
}

/**
 * Sends the chunks in order: the first creates the batch (unless `batchCallId` names one to append
 * to), the rest append to it. Resolves with the batch record of the last response.
 */
export async function uploadChunks(opts: {
  chunks: AsyncIterable<Chunk>;
  create?: CreateParams;
  batchCallId?: string;
  send: (body: BatchRequestBody, info: SendInfo) => Promise<BatchRecord>;
  onSent?: (record: BatchRecord, info: SendInfo) => void;
}): Promise<BatchRecord> {
  let batchCallId = opts.batchCallId;
  if (batchCallId === undefined && opts.create === undefined)
    throw new Error('nothing to create or append to');
  let record: BatchRecord | undefined;
  let sent = 0;
  let index = 0;
  for await (const chunk of opts.chunks) {
    const info: SendInfo = { index, chunk, sentBefore: sent, batchCallId };
    const body: BatchRequestBody =
      batchCallId === undefined
        ? { ...(opts.create as CreateParams), tasks: chunk.tasks }
        : { batch_call_id: batchCallId, tasks: chunk.tasks };
    record = await opts.send(body, info);
    if (typeof record?.batch_call_id !== 'string')
      throw new Error('the server answered without a batch_call_id');
    batchCallId ??= record.batch_call_id;
    sent += chunk.tasks.length;
    opts.onSent?.(record, { ...info, batchCallId });
    index++;
  }
  if (record === undefined) throw new Error('no recipients to send');
  return record;
}

// ---- commands ----

function flags<T extends Record<string, { type: 'string' | 'boolean' }>>(args: string[], spec: T) {
  try {
    return parseArgs({ args, options: spec, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

function intFlag(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function triggerFlag(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw.trim())) return intFlag('trigger', raw, 0, Number.MAX_SAFE_INTEGER);
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) {
    throw new UsageError(`--trigger must be milliseconds since the epoch or an ISO 8601 date, got "${raw}"`);
  }
  return ms;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function describeFailure(err: ParleyError, chunk: Chunk): string {
  const lines = [err.description];
  for (const e of err.errors.slice(0, 10)) {
    const loc = Array.isArray(e.loc) ? e.loc : [];
    const at = loc[0] === 'body' && loc[1] === 'tasks' && typeof loc[2] === 'number' ? loc[2] : undefined;
    const where =
      at !== undefined && chunk.lines[at] !== undefined
        ? `CSV line ${chunk.lines[at]} (${loc.slice(3).join('.') || 'task'})`
        : loc.join('.');
    lines.push(`  ${where}: ${e.msg}`);
  }
  if (err.errors.length > 10) lines.push(`  ... and ${err.errors.length - 10} more`);
  return lines.join('\n');
}

async function batchUpload(args: string[]): Promise<void> {
  const { values: v, positionals } = flags(args, {
    agent: { type: 'string' },
    from: { type: 'string' },
    name: { type: 'string' },
    url: { type: 'string' },
    key: { type: 'string' },
    batch: { type: 'string' },
    trigger: { type: 'string' },
    'reserved-concurrency': { type: 'string' },
    'max-request-bytes': { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('batch upload takes one CSV file');
  const file = positionals[0]!;
  const trigger = triggerFlag(v.trigger);
  const reserved = intFlag('reserved-concurrency', v['reserved-concurrency'], 0, 1_000_000);
  const maxBytes =
    intFlag('max-request-bytes', v['max-request-bytes'], 16_384, 100 * 1024 * 1024) ?? MAX_REQUEST_BYTES;
  let create: CreateParams | undefined;
  if (v.batch !== undefined) {
    const ignored = (['agent', 'from', 'name', 'trigger', 'reserved-concurrency'] as const).filter(
      (f) => v[f] !== undefined,
    );
    if (ignored.length > 0) {
      throw new UsageError(`--batch appends to an existing batch; drop --${ignored.join(', --')}`);
    }
  } else {
    if (!v.agent) throw new UsageError('batch upload needs --agent (or --batch to append)');
    if (!v.from) throw new UsageError('batch upload needs --from (or --batch to append)');
    create = {
      model_id: v.agent,
      from_phone_number: v.from,
      ...(v.name !== undefined ? { name: v.name } : {}),
      ...(trigger !== undefined ? { trigger_timestamp: trigger } : {}),
      ...(reserved !== undefined ? { reserved_concurrency: reserved } : {}),
    };
  }
  if (!existsSync(file)) throw new Error(`${file}: no such file`);
  const target = resolveTarget(v);
  const client = new ApiClient(target);
  const postUrl = `${client.url}/v2/calls/batch`;
  const status = new StatusLine(process.stderr);

  try {
    // First pass: every row is checked (and counted) before anything is sent.
    let total = 0;
    let requests = 0;
    try {
      for await (const chunk of chunkRecipients(readRecipientsFile(file), MAX_TASKS_PER_REQUEST, maxBytes)) {
        total += chunk.tasks.length;
        requests++;
        status.update(`checking ${file}: ${count(total)} recipients`);
      }
    } catch (err) {
      throw new Error(`${file}: ${err instanceof Error ? err.message : String(err)}; nothing was sent`);
    }
    if (total === 0) throw new Error(`${file}: no recipients; nothing was sent`);
    if (total > MAX_TASKS_PER_BATCH) {
      throw new Error(
        `${file}: ${count(total)} recipients, more than a batch holds (${count(MAX_TASKS_PER_BATCH)}); nothing was sent`,
      );
    }
    status.log(
      `${file}: ${count(total)} recipients in ${requests} request${requests === 1 ? '' : 's'} to ${target.url}`,
    );

    // Second pass: the same rows, one request's worth at a time.
    const started = Date.now();
    const progress = (sent: number, done: number) =>
      `${bar(sent, total)} ${percent(sent, total)}  ${count(sent)}/${count(total)} recipients  ` +
      `${done}/${requests} requests  ${rate(sent, Date.now() - started)}`;
    status.update(progress(0, 0));
    const record = await uploadChunks({
      chunks: chunkRecipients(readRecipientsFile(file), MAX_TASKS_PER_REQUEST, maxBytes),
      ...(create ? { create } : {}),
      ...(v.batch !== undefined ? { batchCallId: v.batch } : {}),
      send: async (body, info) => {
        try {
          return await withRetry(
            () => client.createBatch(body),
            (err) =>
              status.log(`request ${info.index + 1}/${requests}: ${summary(err, postUrl)}; trying once more`),
          );
        } catch (err) {
          if (!(err instanceof ParleyError)) throw err;
          const first = info.chunk.lines[0];
          const stored =
            info.batchCallId === undefined
              ? 'nothing was stored'
              : info.sentBefore === 0
                ? `batch ${info.batchCallId} is unchanged`
                : `the ${count(info.sentBefore)} recipients before CSV line ${first} were added to batch ${info.batchCallId}`;
          const what =
            err.status === undefined
              ? `${summary(err, postUrl)} (the server may have stored this request before the connection failed)`
              : `${err.status} ${describeFailure(err, info.chunk)}`;
          throw new Error(
            `request ${info.index + 1}/${requests} (CSV line ${first} on) failed: ${what}\n${stored}`,
            { cause: err },
          );
        }
      },
      onSent: (_record, info) => {
        const sent = info.sentBefore + info.chunk.tasks.length;
        if (status.tty) status.update(progress(sent, info.index + 1), true);
        else status.update(`sent ${progress(sent, info.index + 1).replace(/^\[[#-]*\]\s*/, '')}`, true);
      },
    });
    status.finish();
    print(record);
  } finally {
    status.finish();
  }
}

function counters(r: BatchRecord): string {
  const done = (r.dispatched_count ?? 0) + (r.failed_count ?? 0) + (r.canceled_count ?? 0);
  return (
    `${r.status}  ${bar(done, r.total_task_count)} ${count(done)}/${count(r.total_task_count ?? 0)}  ` +
    `pending ${count(r.pending_count ?? 0)}  dispatched ${count(r.dispatched_count ?? 0)}  ` +
    `failed ${count(r.failed_count ?? 0)}  canceled ${count(r.canceled_count ?? 0)}`
  );
}

async function batchWatch(args: string[]): Promise<void> {
  const { values: v, positionals } = flags(args, {
    url: { type: 'string' },
    key: { type: 'string' },
    'interval-ms': { type: 'string' },
    once: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('batch watch takes one batch_call_id');
  const id = positionals[0]!;
  const interval = intFlag('interval-ms', v['interval-ms'], 10, 3_600_000) ?? 1000;
  const client = new ApiClient(resolveTarget(v));
  const getUrl = `${client.url}/v2/calls/batch/${encodeURIComponent(id)}`;
  const status = new StatusLine(process.stderr);
  const onInterrupt = () => {
    status.finish();
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  let failures = 0;
  let last = '';
  let first: { at: number; done: number } | undefined;
  try {
    for (;;) {
      let record: BatchRecord;
      try {
        record = await client.getBatch(id);
        failures = 0;
      } catch (err) {
        if (!(err instanceof ParleyError)) throw err;
        if (err.status === 404) throw new Error(`batch ${id}: ${err.description}`, { cause: err });
        if (err.retryable && !v.once && ++failures < WATCH_MAX_FAILURES) {
          status.log(`${summary(err, getUrl)}; trying again`);
          await sleep(retryDelayMs(err, interval));
          continue;
        }
        const what = err.status === undefined ? summary(err, getUrl) : `GET ${getUrl}: ${err.summary}`;
        throw new Error(what, { cause: err });
      }
      const text = counters(record);
      const done = record.dispatched_count + record.failed_count + record.canceled_count;
      first ??= { at: Date.now(), done };
      if (status.tty) {
        status.update(`${text}  ${rate(done - first.done, Date.now() - first.at)}`, true);
      } else if (text !== last) {
        status.update(text, true);
      }
      last = text;
      if (v.once || FINAL_STATUSES.has(record.status)) {
        status.finish();
        print(record);
        return;
      }
      await sleep(interval);
    }
  } finally {
    status.finish();
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * `parley batch <sub> ...`. This module loads none of the server's code (it only speaks HTTP);
 * the caller passes its usage error type.
 */
export async function runBatch(
  sub: string | undefined,
  args: string[],
  usageError: (message: string) => Error,
): Promise<void> {
  try {
    if (sub === 'upload') return await batchUpload(args);
    if (sub === 'watch') return await batchWatch(args);
    throw new UsageError(`unknown batch command: ${sub ?? '(none)'}`);
  } catch (err) {
    throw err instanceof BatchUsageError ? usageError(err.message) : err;
  }
}
