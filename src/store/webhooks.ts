import { randomUUID } from 'node:crypto';
import { sql, type Selectable, type Updateable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { Page } from './records.ts';
import type { WebhookDeliveryTable, WebhookLogTable } from './schema.ts';
import { containsPattern } from './simulations.ts';
import { newestFirstPage } from './paging.ts';

// The webhook outbox and its attempt log (WIRE.md section 9).
//
// - `enqueue` writes a delivery row; called inside `store.transaction` it commits together with
//   the change that caused it (a finalized call), so a webhook is queued if and only if the change
//   happened.
// - `claimDue` hands due rows to one worker: PostgreSQL locks them with FOR UPDATE SKIP LOCKED
//   (other workers skip them), SQLite runs under its single write lock. A claim is a lease: the
//   row's `next_attempt_at` moves to the lease's end and `attempts` counts the attempt, so a
//   worker that dies mid-attempt leaves a row that is claimed again once the lease runs out
//   (at least once; a crash counts as an attempt, so a payload that kills workers still ends).
// - `recordAttempt` writes the attempt's log row and the delivery's new state in one transaction.

export const WEBHOOK_TYPES = ['external_webhook', 'inbound_webhook', 'custom_action'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];
export const WEBHOOK_STATUSES = ['pending', 'success', 'failed'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
type WebhookHttpMethod = NonNullable<WebhookLogFilter['httpMethod']>;

/**
 * The HTTP method of a log row's attempt: webhooks (post-call and inbound) are POSTed; a custom
 * action's method is not recorded in its row, so it has none ("").
 */
export function httpMethodOfLog(type: WebhookType): 'POST' | '' {
  return type === 'custom_action' ? '' : 'POST';
}

/** The types of attempt made with `method` (the `http_method` filter). */
const typesOfMethod = (method: WebhookHttpMethod): WebhookType[] =>
  WEBHOOK_TYPES.filter((type) => httpMethodOfLog(type) === method);

/** ASCII letters only: the same folding as SQLite's lower() and PostgreSQL's under the C collation. */
const foldAscii = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** Bodies kept in a log row (request and response), in UTF-8 bytes. */
export const MAX_LOG_BODY_BYTES = 64 * 1024;

export interface NewWebhookDelivery {
  workspaceId: string;
  type: WebhookType;
  url: string;
  /** Serialized once, here; every attempt sends these exact bytes. */
  payload: unknown;
  callId?: string | null;
  assistantId?: string | null;
  /** When to make the first attempt (ms); default now. */
  notBefore?: number;
}

export interface WebhookDelivery {
  id: string;
  workspaceId: string;
  type: WebhookType;
  url: string;
  /** The serialized JSON body. */
  body: string;
  callId: string | null;
  assistantId: string | null;
  status: WebhookStatus;
  /** Attempts started (a claim counts one). */
  attempts: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A delivery handed to one worker, with what it needs to sign it. */
export interface ClaimedWebhookDelivery extends WebhookDelivery {
  leaseToken: string;
  /** The attempt this claim makes (1-based). */
  attemptNumber: number;
  /** Signing secrets: the workspace's current one, then the previous one while it is valid. */
  secrets: string[];
  /** False when the workspace is gone (deleted): the delivery is dropped. */
  workspaceActive: boolean;
}

export interface NewWebhookLog {
  workspaceId: string;
  deliveryId?: string | null;
  webhookType: WebhookType;
  status: WebhookStatus;
  callId?: string | null;
  assistantId?: string | null;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatusCode?: number | null;
  responseHeaders?: Record<string, string> | null;
  responseBody?: string | null;
  attemptNumber: number;
  durationMs: number;
  error?: string | null;
}

export interface WebhookLog {
  id: string;
  workspaceId: string;
  deliveryId: string | null;
  webhookType: WebhookType;
  status: WebhookStatus;
  callId: string | null;
  assistantId: string | null;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  responseStatusCode: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  attemptNumber: number;
  durationMs: number;
  error: string | null;
  createdAt: number;
}

export interface WebhookLogFilter {
  webhookType?: WebhookType;
  status?: WebhookStatus;
  callId?: string;
  assistantId?: string;
  /** Inclusive bounds on created_at (ms). */
  fromMs?: number;
  toMs?: number;
  /**
   * A substring of the URL, the call id, the log id or the webhook id (the `webhook-id` header),
   * ASCII letters in any case; `%`, `_` and `\` are plain characters.
   */
  search?: string;
  httpMethod?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

export interface AttemptOutcome {
  /** success: delivered; failed: given up; pending: retried at `nextAttemptAt`. */
  status: WebhookStatus;
  nextAttemptAt?: number;
  statusCode?: number | null;
  error?: string | null;
}

export interface RecordedAttempt {
  delivery: Pick<ClaimedWebhookDelivery, 'id' | 'leaseToken'>;
  log: NewWebhookLog;
  outcome: AttemptOutcome;
}

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

/** Text a database can keep: at most `maxBytes` of UTF-8, without U+0000 (PostgreSQL refuses it). */
export function storableText(text: string, maxBytes = MAX_LOG_BODY_BYTES): string {
  let out = text;
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short text needs no measuring.
  if (out.length * 3 > maxBytes && Buffer.byteLength(out, 'utf8') > maxBytes) {
    out = Buffer.from(out, 'utf8').subarray(0, maxBytes).toString('utf8');
  }
  return out.includes('\u0000') ? out.replaceAll('\u0000', '\uFFFD') : out;
}

function storableHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[storableText(k, 1024)] = storableText(v, 8192);
  return out;
}

function toDelivery(row: Selectable<WebhookDeliveryTable>): WebhookDelivery {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    type: row.type as WebhookType,
    url: row.url,
    body: row.payload,
    callId: row.call_id,
    assistantId: row.assistant_id,
    status: row.status as WebhookStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toLog(row: Selectable<WebhookLogTable>): WebhookLog {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    deliveryId: row.delivery_id,
    webhookType: row.webhook_type as WebhookType,
    status: row.status as WebhookStatus,
    callId: row.call_id,
    assistantId: row.assistant_id,
    url: row.url,
    requestHeaders: fromJson<Record<string, string>>(row.request_headers) ?? {},
    requestBody: row.request_body,
    responseStatusCode: row.response_status_code === null ? null : Number(row.response_status_code),
    responseHeaders: fromJson<Record<string, string>>(row.response_headers),
    responseBody: row.response_body,
    attemptNumber: Number(row.attempt_number),
    durationMs: Number(row.duration_ms),
    error: row.error,
    createdAt: Number(row.created_at),
  };
}

function deliveryRow(input: NewWebhookDelivery, now: number) {
  return {
    id: newId(),
    workspace_id: input.workspaceId,
    type: input.type,
    url: input.url,
    payload: JSON.stringify(input.payload ?? null),
    call_id: input.callId ?? null,
    assistant_id: input.assistantId ?? null,
    status: 'pending',
    attempts: 0,
    next_attempt_at: input.notBefore ?? now,
    lease_token: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

export function webhooksRepo(
  db: Db,
  clock: Clock,
  dialect: DialectName,
  transact: Transact = (fn) => fn(db),
) {
  function logValues(input: NewWebhookLog, createdAt: number) {
    return {
      id: newId(),
      workspace_id: input.workspaceId,
      delivery_id: input.deliveryId ?? null,
      webhook_type: input.webhookType,
      status: input.status,
      call_id: input.callId ?? null,
      assistant_id: input.assistantId ?? null,
      url: input.url,
      request_headers: toJson(storableHeaders(input.requestHeaders)),
      request_body: storableText(input.requestBody),
      response_status_code: input.responseStatusCode ?? null,
      response_headers: input.responseHeaders ? toJson(storableHeaders(input.responseHeaders)) : null,
      response_body: input.responseBody == null ? null : storableText(input.responseBody),
      attempt_number: input.attemptNumber,
      duration_ms: Math.max(0, Math.round(input.durationMs)),
      error: input.error == null ? null : storableText(input.error, 4096),
      created_at: createdAt,
    };
  }

  async function insertLog(trx: Db, input: NewWebhookLog): Promise<WebhookLog> {
    const row = await trx
      .insertInto('webhook_logs')
      .values(logValues(input, clock.now()))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toLog(row);
  }

  /**
   * The column lowercased the same way on both dialects: ASCII letters only (SQLite's lower()
   * folds no other; PostgreSQL's would fold by locale, except under the C collation).
   */
  const foldedColumn = (column: 'url' | 'call_id' | 'id' | 'delivery_id') =>
    dialect === 'postgres' ? sql`lower(${sql.ref(column)} collate "C")` : sql`lower(${sql.ref(column)})`;

  /** Attempts recorded per statement batch (bounded by the databases' parameter limits). */
  const RECORD_CHUNK = 200;

  async function recordAll(attempts: RecordedAttempt[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    return transact(async (trx) => {
      const now = clock.now();
      for (let i = 0; i < attempts.length; i += RECORD_CHUNK) {
        await trx
          .insertInto('webhook_logs')
          .values(
            attempts
              .slice(i, i + RECORD_CHUNK)
              .map((a) => logValues({ ...a.log, deliveryId: a.delivery.id }, now)),
          )
          .execute();
      }
      // Attempts with the same outcome (typically: delivered) share one UPDATE. A row is updated
      // only while the claim that made the attempt still holds it (id and lease token).
      const groups = new Map<string, { set: Updateable<WebhookDeliveryTable>; items: number[] }>();
      attempts.forEach(({ outcome }, index) => {
        const set = {
          status: outcome.status,
          next_attempt_at: outcome.status === 'pending' ? (outcome.nextAttemptAt ?? now) : now,
          lease_token: null,
          last_status_code: outcome.statusCode ?? null,
          last_error: outcome.error == null ? null : storableText(outcome.error, 4096),
          updated_at: now,
        };
        const key = JSON.stringify(set);
        const group = groups.get(key);
        if (group) group.items.push(index);
        else groups.set(key, { set, items: [index] });
      });
      const updated = new Set<string>();
      for (const { set, items } of groups.values()) {
        for (let i = 0; i < items.length; i += RECORD_CHUNK) {
          const pairs = items
            .slice(i, i + RECORD_CHUNK)
            .map((index) => attempts[index]!.delivery)
            .map((d) => sql`(${d.id}, ${d.leaseToken})`);
          const rows = await trx
            .updateTable('webhook_deliveries')
            .set(set)
            .where(sql<boolean>`(id, lease_token) in (values ${sql.join(pairs)})`)
            .returning(['id'])
            .execute();
          for (const r of rows) updated.add(r.id);
        }
      }
      const held = attempts.map((a) => updated.has(a.delivery.id));
      return held;
    });
  }

  return {
    /** Queues a webhook; use inside `store.transaction` to commit it with what caused it. */
    async enqueue(input: NewWebhookDelivery): Promise<WebhookDelivery> {
      const row = await db
        .insertInto('webhook_deliveries')
        .values(deliveryRow(input, clock.now()))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toDelivery(row);
    },

    /** Several deliveries in one statement (the post-call webhooks of calls ending together). */
    async enqueueMany(inputs: readonly NewWebhookDelivery[]): Promise<void> {
      if (inputs.length === 0) return;
      const now = clock.now();
      await db
        .insertInto('webhook_deliveries')
        .values(inputs.map((input) => deliveryRow(input, now)))
        .execute();
    },

    async getDelivery(workspaceId: string, id: string): Promise<WebhookDelivery | null> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toDelivery(row) : null;
    },

    /** Pending deliveries of a workspace, oldest first (operators and tests). */
    async listDeliveries(workspaceId: string, status?: WebhookStatus): Promise<WebhookDelivery[]> {
      let q = db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', workspaceId);
      if (status) q = q.where('status', '=', status);
      return (await q.orderBy('seq', 'asc').execute()).map(toDelivery);
    },

    /**
     * Claims up to `limit` due deliveries for `leaseMs`; each claim counts as an attempt. Another
     * worker (or process) cannot claim them until the lease ends.
     */
    async claimDue(limit: number, leaseMs: number): Promise<ClaimedWebhookDelivery[]> {
      if (limit <= 0) return [];
      return transact(async (trx) => {
        const now = clock.now();
        let q = trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at')
          .orderBy('seq')
          .limit(limit);
        if (dialect === 'postgres') q = q.forUpdate().skipLocked();
        const due = await q.execute();
        if (due.length === 0) return [];
        const token = randomUUID();
        const rows = await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({
            lease_token: token,
            next_attempt_at: now + leaseMs,
            attempts: eb('attempts', '+', 1),
            updated_at: now,
          }))
          .where(
            'id',
            'in',
            due.map((d) => d.id),
          )
          .returningAll()
          .execute();
        const workspaceIds = [...new Set(rows.map((r) => r.workspace_id))];
        const workspaces = await trx
          .selectFrom('workspaces')
          .select([
            'id',
            'webhook_secret',
            'previous_webhook_secret',
            'previous_webhook_secret_expires_at',
            'deleted_at',
          ])
          .where('id', 'in', workspaceIds)
          .execute();
        const byId = new Map(workspaces.map((w) => [w.id, w]));
        const order = new Map(due.map((d, i) => [d.id, i]));
        rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
        return rows.map((row) => {
          const w = byId.get(row.workspace_id);
          const secrets: string[] = [];
          if (w) {
            secrets.push(w.webhook_secret);
            const expires = w.previous_webhook_secret_expires_at;
            if (w.previous_webhook_secret && expires !== null && Number(expires) > now) {
              secrets.push(w.previous_webhook_secret);
            }
          }
          const delivery = toDelivery(row);
          return {
            ...delivery,
            leaseToken: token,
            attemptNumber: delivery.attempts,
            secrets,
            workspaceActive: !!w && w.deleted_at === null,
          };
        });
      });
    },

    /** When the earliest pending delivery is due (a leased one: when its lease ends); null if none. */
    async nextDueAt(): Promise<number | null> {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.min('next_attempt_at').as('next'))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return row?.next == null ? null : Number(row.next);
    },

    /**
     * Records one attempt: its log row and the delivery's new state, in one transaction. `leaseHeld`
     * is false when the lease was lost (the row was claimed again after the lease ran out); the
     * log row is written anyway, the attempt did happen.
     */
    async recordAttempt(
      delivery: Pick<ClaimedWebhookDelivery, 'id' | 'leaseToken'>,
      log: NewWebhookLog,
      outcome: AttemptOutcome,
    ): Promise<{ leaseHeld: boolean }> {
      const [leaseHeld = false] = await recordAll([{ delivery, log, outcome }]);
      return { leaseHeld };
    },

    /** Records several attempts in one transaction (group commit); `leaseHeld` per attempt. */
    recordAttempts: (attempts: RecordedAttempt[]): Promise<boolean[]> => recordAll(attempts),

    /** A log row without an outbox delivery (inbound webhooks, custom actions). */
    appendLog: (input: NewWebhookLog): Promise<WebhookLog> => insertLog(db, input),

    async getLog(workspaceId: string, id: string): Promise<WebhookLog | null> {
      const row = await db
        .selectFrom('webhook_logs')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toLog(row) : null;
    },

    /** Log rows, newest first; `pageNumber` starts at 1. */
    async listLogs(
      workspaceId: string,
      filter: WebhookLogFilter,
      pageNumber: number,
      pageSize: number,
    ): Promise<Page<WebhookLog>> {
      let base = db.selectFrom('webhook_logs').where('workspace_id', '=', workspaceId);
      if (filter.webhookType) base = base.where('webhook_type', '=', filter.webhookType);
      if (filter.status) base = base.where('status', '=', filter.status);
      if (filter.callId) base = base.where('call_id', '=', filter.callId);
      if (filter.assistantId) base = base.where('assistant_id', '=', filter.assistantId);
      if (filter.fromMs !== undefined) base = base.where('created_at', '>=', filter.fromMs);
      if (filter.toMs !== undefined) base = base.where('created_at', '<=', filter.toMs);
      if (filter.httpMethod) {
        const types = typesOfMethod(filter.httpMethod);
        base = types.length > 0 ? base.where('webhook_type', 'in', types) : base.where(sql<boolean>`1 = 0`);
      }
      if (filter.search) {
        const pattern = containsPattern(filter.search, foldAscii);
        base = base.where(
          sql<boolean>`(${sql.join(
            (['url', 'call_id', 'id', 'delivery_id'] as const).map(
              (column) => sql`${foldedColumn(column)} like ${pattern} escape '\\'`,
            ),
            sql` or `,
          )})`,
        );
      }
      return newestFirstPage(base, { pageNumber, pageSize }, toLog);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof webhooksRepo>;
