import { sql, type Selectable, type Updateable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db, DialectName } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { CallTable } from './schema.ts';

// Calls. The status rules (which moves are allowed) belong to src/calls; this repository only
// applies a move when the row is still in one of the statuses the caller allows (a compare and
// set), and keeps the slot count exact: `admit` and `createAdmitted` take slots under the
// workspace's slot lock, `releaseSlots` gives slots back at hang-up and hands each to a waiting
// call (never raising the count, so without the lock), and a call's last move releases its slot
// if it still holds one.

/**
 * What a call keeps beside its columns, stored as JSON and parsed once on read (`parseCallSettings`).
 */
export interface CallSettings {
  /** The carrier the call runs on (`sim`, `sip`, `twilio`, `ws`...). */
  provider?: string;
  /** The call's own prompt and greeting (POST /v2/calls `prompt`, `greeting`) over the agent's. */
  prompt?: string;
  greeting?: string;
  /** Inbound: the agent the number names, before the inbound webhook chose one. */
  default_agent?: string | null;
  /** Inbound: the agent the call was routed away from. */
  routed_from?: string;
  recording_url?: string;
  /** Its node died mid-call: what was said up to then is kept (src/calls/cut-short.ts). */
  cut_short?: boolean;
}

/** The known fields of stored settings, each of its type; anything else is dropped. */
export function parseCallSettings(raw: unknown): CallSettings {
  if (typeof raw !== 'object' || raw === null) return {};
  const o = raw as Record<string, unknown>;
  const text = (key: string) => (typeof o[key] === 'string' ? { [key]: o[key] } : {});
  return {
    ...text('provider'),
    ...text('prompt'),
    ...text('greeting'),
    ...(typeof o.default_agent === 'string' || o.default_agent === null
      ? { default_agent: o.default_agent }
      : {}),
    ...text('routed_from'),
    ...text('recording_url'),
    ...(typeof o.cut_short === 'boolean' ? { cut_short: o.cut_short } : {}),
  };
}

export interface Call {
  seq: number;
  id: string;
  workspaceId: string;
  agentId: string;
  /** The agent version the call runs, fixed at placement; null: the draft. */
  agentVersionId: string | null;
  type: 'outbound' | 'inbound' | 'web';
  status: string;
  endCallReason: string | null;
  customEndCallReason: string | null;
  errorMessage: string | null;
  phoneFrom: string;
  phoneTo: string;
  leadName: string;
  leadEmail: string | null;
  leadTimezone: string | null;
  variables: Record<string, string | number | boolean>;
  metadata: Record<string, unknown>;
  settings: CallSettings;
  webhookUrl: string | null;
  batchCallId: string | null;
  batchTaskId: string | null;
  state: unknown;
  analysis: unknown;
  quality: unknown;
  transcript: string;
  callSid: string | null;
  node: string | null;
  holdsSlot: boolean;
  /** Hung up, its after-the-call work (analysis, webhook) not done yet. */
  afterCallPending: boolean;
  createdAt: number;
  ringingAt: number | null;
  answeredAt: number | null;
  endedAt: number | null;
  durationSeconds: number | null;
  version: number;
  updatedAt: number;
}

export interface NewCall {
  id?: string;
  agentId: string;
  /** The agent version the call runs; null or absent: the draft. */
  agentVersionId?: string | null;
  type: Call['type'];
  /** `pending` (waits for a slot) or `registered` (inbound, being routed). */
  status: string;
  phoneFrom: string;
  phoneTo: string;
  leadName: string;
  leadEmail?: string | null;
  leadTimezone?: string | null;
  variables?: Record<string, string | number | boolean>;
  metadata?: Record<string, unknown>;
  settings?: CallSettings;
  webhookUrl?: string | null;
  batchCallId?: string | null;
  batchTaskId?: string | null;
  /** Take a slot at creation (inbound calls); the caller checked there is one. */
  holdsSlot?: boolean;
  node?: string | null;
  ringingAt?: number | null;
}

/** Fields a move may set. */
export interface CallPatch {
  status?: string;
  agentId?: string;
  agentVersionId?: string | null;
  endCallReason?: string | null;
  customEndCallReason?: string | null;
  errorMessage?: string | null;
  variables?: Record<string, string | number | boolean>;
  metadata?: Record<string, unknown>;
  settings?: CallSettings;
  state?: unknown;
  analysis?: unknown;
  quality?: unknown;
  transcript?: string;
  callSid?: string | null;
  node?: string | null;
  holdsSlot?: boolean;
  afterCallPending?: boolean;
  ringingAt?: number;
  answeredAt?: number;
  endedAt?: number;
  durationSeconds?: number;
}

export interface CallFilters {
  agentId?: string;
  status?: string;
  /** Calls that began (ringing, or answered for inbound) at or after. */
  fromDate?: number;
  /** Calls that ended at or before. */
  toDate?: number;
  durationMin?: number;
  durationMax?: number;
  /** Exact E.164, caller or callee. */
  leadPhone?: string;
  batchCallId?: string;
  limit: number;
  offset: number;
}

function toCall(row: Selectable<CallTable>): Call {
  const n = (v: number | null) => (v === null || v === undefined ? null : Number(v));
  return {
    seq: Number(row.seq),
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    agentVersionId: row.agent_version_id ?? null,
    type: row.type as Call['type'],
    status: row.status,
    endCallReason: row.end_call_reason,
    customEndCallReason: row.custom_end_call_reason,
    errorMessage: row.error_message,
    phoneFrom: row.phone_from,
    phoneTo: row.phone_to,
    leadName: row.lead_name,
    leadEmail: row.lead_email,
    leadTimezone: row.lead_timezone,
    variables: fromJson<Call['variables']>(row.variables) ?? {},
    metadata: fromJson<Record<string, unknown>>(row.metadata) ?? {},
    settings: parseCallSettings(fromJson<unknown>(row.settings)),
    webhookUrl: row.webhook_url,
    batchCallId: row.batch_call_id,
    batchTaskId: row.batch_task_id,
    state: fromJson<unknown>(row.state),
    analysis: fromJson<unknown>(row.analysis),
    quality: fromJson<unknown>(row.quality),
    transcript: row.transcript,
    callSid: row.call_sid,
    node: row.node,
    holdsSlot: Number(row.holds_slot) === 1,
    afterCallPending: Number(row.after_call) === 1,
    createdAt: Number(row.created_at),
    ringingAt: n(row.ringing_at),
    answeredAt: n(row.answered_at),
    endedAt: n(row.ended_at),
    durationSeconds: n(row.duration_seconds),
    version: Number(row.version),
    updatedAt: Number(row.updated_at),
  };
}

function patchValues(patch: CallPatch): Updateable<CallTable> {
  const v: Updateable<CallTable> = {};
  if (patch.status !== undefined) v.status = patch.status;
  if (patch.agentId !== undefined) v.agent_id = patch.agentId;
  if (patch.agentVersionId !== undefined) v.agent_version_id = patch.agentVersionId;
  if (patch.endCallReason !== undefined) v.end_call_reason = patch.endCallReason;
  if (patch.customEndCallReason !== undefined) v.custom_end_call_reason = patch.customEndCallReason;
  if (patch.errorMessage !== undefined) v.error_message = patch.errorMessage;
  if (patch.variables !== undefined) v.variables = toJson(patch.variables);
  if (patch.metadata !== undefined) v.metadata = toJson(patch.metadata);
  if (patch.settings !== undefined) v.settings = toJson(patch.settings);
  if (patch.state !== undefined) v.state = toJson(patch.state);
  if (patch.analysis !== undefined) v.analysis = toJson(patch.analysis);
  if (patch.quality !== undefined) v.quality = toJson(patch.quality);
  if (patch.transcript !== undefined) v.transcript = patch.transcript;
  if (patch.callSid !== undefined) v.call_sid = patch.callSid;
  if (patch.node !== undefined) v.node = patch.node;
  if (patch.holdsSlot !== undefined) v.holds_slot = patch.holdsSlot ? 1 : 0;
  if (patch.afterCallPending !== undefined) v.after_call = patch.afterCallPending ? 1 : 0;
  if (patch.ringingAt !== undefined) v.ringing_at = patch.ringingAt;
  if (patch.answeredAt !== undefined) v.answered_at = patch.answeredAt;
  if (patch.endedAt !== undefined) v.ended_at = patch.endedAt;
  if (patch.durationSeconds !== undefined) v.duration_seconds = patch.durationSeconds;
  return v;
}

/** One compare-and-set move of `updateMany`: `patch` applies if the call is in one of `from`. */
export interface CallMove {
  workspaceId: string;
  id: string;
  from: readonly string[];
  patch: CallPatch;
  /** Also only while the call waits for its after-the-call work (no one else finished it). */
  whileAfterCall?: boolean;
}

/** PostgreSQL types of the patchable columns that are not text (for `updateMany`'s VALUES). */
const PG_TYPES: Record<string, string> = {
  variables: 'jsonb',
  metadata: 'jsonb',
  settings: 'jsonb',
  state: 'jsonb',
  analysis: 'jsonb',
  quality: 'jsonb',
  holds_slot: 'integer',
  after_call: 'integer',
  ringing_at: 'bigint',
  answered_at: 'bigint',
  ended_at: 'bigint',
  duration_seconds: 'integer',
};

type Transact = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

function callRow(workspaceId: string, input: NewCall, now: number) {
  return {
    id: input.id ?? newId(),
    workspace_id: workspaceId,
    agent_id: input.agentId,
    agent_version_id: input.agentVersionId ?? null,
    type: input.type,
    status: input.status,
    phone_from: input.phoneFrom,
    phone_to: input.phoneTo,
    lead_name: input.leadName,
    lead_email: input.leadEmail ?? null,
    lead_timezone: input.leadTimezone ?? null,
    variables: toJson(input.variables ?? {}) ?? '{}',
    metadata: toJson(input.metadata ?? {}) ?? '{}',
    settings: toJson(input.settings ?? {}) ?? '{}',
    webhook_url: input.webhookUrl ?? null,
    batch_call_id: input.batchCallId ?? null,
    batch_task_id: input.batchTaskId ?? null,
    node: input.node ?? null,
    holds_slot: input.holdsSlot ? 1 : 0,
    ringing_at: input.ringingAt ?? null,
    created_at: now,
    updated_at: now,
  };
}

export function callsRepo(db: Db, clock: Clock, dialect: DialectName, transact: Transact = (fn) => fn(db)) {
  /**
   * Serializes slot accounting of one workspace until the transaction ends: a transaction-scoped
   * advisory lock on PostgreSQL (SQLite: its write lock). Not the workspace's row lock: calls
   * ending meter their minutes on that row, and must not wait for an admission to commit.
   */
  async function lockSlots(trx: Db, workspaceId: string) {
    if (dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`parley-slots:${workspaceId}`}, 0))`.execute(
        trx,
      );
    }
  }

  async function busy(trx: Db, workspaceId: string): Promise<number> {
    const row = await trx
      .selectFrom('calls')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('holds_slot', '=', 1)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async function slotsWanted(trx: Db, workspaceId: string): Promise<number> {
    const row = await trx
      .selectNoFrom((eb) => [
        eb
          .selectFrom('calls')
          .select(eb.fn.countAll<number>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('holds_slot', '=', 1)
          .as('busy'),
        eb
          .selectFrom('calls')
          .select(eb.fn.countAll<number>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('status', '=', 'pending')
          .as('waiting'),
      ])
      .executeTakeFirstOrThrow();
    return Number(row.busy ?? 0) + Number(row.waiting ?? 0);
  }

  /**
   * Waiting calls that may take a slot now, at most `room`: calls placed on their own first (a
   * campaign's standby calls were dispatched ahead of need and must not hold them up), then the
   * oldest first. A batch's call only while its batch is dialing (a paused batch's calls were
   * returned to it), and only while the workspace's calls holding slots (`held`, plus the ones
   * admitted before it) stay within `max` minus its batch's reserved_concurrency. The caller
   * holds the slot lock, or frees as many slots as it may fill.
   */
  async function admittable(
    trx: Db,
    workspaceId: string,
    node: string,
    held: number,
    max: number,
    room: number,
  ) {
    if (room <= 0) return [];
    const rows = await trx
      .selectFrom('calls as w')
      .leftJoin('batches as b', 'b.id', 'w.batch_call_id')
      .select(['w.id', 'b.reserved_concurrency'])
      .where('w.workspace_id', '=', workspaceId)
      .where('w.status', '=', 'pending')
      // A waiting call with a node named runs there only (a WS media call runs where its client binds).
      .where((eb) => eb.or([eb('w.node', 'is', null), eb('w.node', '=', node)]))
      .where((eb) =>
        eb.or([eb('w.batch_call_id', 'is', null), eb('b.status', 'in', ['scheduled', 'in_progress'])]),
      )
      // A batch's call whose reserved slots rule it out now does not stand in the way of others.
      .where((eb) =>
        eb.or([eb('b.reserved_concurrency', 'is', null), eb('b.reserved_concurrency', '<=', max - held - 1)]),
      )
      .orderBy(sql`case when w.batch_call_id is null then 0 else 1 end`)
      .orderBy('w.seq')
      .limit(room)
      .execute();
    const ids: string[] = [];
    for (const row of rows) {
      if (held + ids.length + 1 <= max - (row.reserved_concurrency ?? 0)) ids.push(row.id);
    }
    return ids;
  }

  /** Moves waiting calls to `ringing`, holding slots, owned by `node`: the admitted calls. */
  async function ringing(trx: Db, ids: readonly string[], node: string): Promise<Call[]> {
    if (ids.length === 0) return [];
    const now = clock.now();
    const rows = await trx
      .updateTable('calls')
      .set({
        status: 'ringing',
        holds_slot: 1,
        node,
        ringing_at: now,
        version: sql`version + 1`,
        updated_at: now,
      })
      .where('id', 'in', [...ids])
      .where('status', '=', 'pending')
      .returningAll()
      .execute();
    return rows.map(toCall).sort((a, b) => a.seq - b.seq);
  }

  /**
   * Applies `patch` if the call is still in one of `from` (and, when given, at `version`);
   * null when it is not (another writer moved it first). Bumps the version.
   */
  async function updateOne(
    workspaceId: string,
    id: string,
    from: readonly string[],
    patch: CallPatch,
    version?: number,
    whileAfterCall = false,
  ): Promise<Call | null> {
    let q = db
      .updateTable('calls')
      .set({ ...patchValues(patch), version: sql`version + 1`, updated_at: clock.now() })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('status', 'in', [...from]);
    if (version !== undefined) q = q.where('version', '=', version);
    if (whileAfterCall) q = q.where('after_call', '=', 1);
    const row = await q.returningAll().executeTakeFirst();
    return row ? toCall(row) : null;
  }

  return {
    async create(workspaceId: string, input: NewCall): Promise<Call> {
      const row = await db
        .insertInto('calls')
        .values(callRow(workspaceId, input, clock.now()))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toCall(row);
    },

    /**
     * Creates `pending` calls and admits at once as many as the workspace has free slots, after
     * the calls already waiting (they keep their turn): those are `ringing`, hold a slot and are
     * owned by `node`. The slot lock is held to the end of the caller's transaction, so the cap
     * holds across processes: run it in a transaction. Answers the admitted calls, in order; the
     * others wait for `admit`.
     */
    async createAdmitted(
      workspaceId: string,
      inputs: readonly NewCall[],
      max: number,
      node: string,
    ): Promise<Call[]> {
      if (inputs.length === 0) return [];
      await lockSlots(db, workspaceId);
      const free = Math.max(0, Math.min(inputs.length, max - (await slotsWanted(db, workspaceId))));
      const now = clock.now();
      const rows = inputs.map((input, i) =>
        callRow(
          workspaceId,
          i < free ? { ...input, status: 'ringing', holdsSlot: true, node, ringingAt: now } : input,
          now,
        ),
      );
      if (free === 0) {
        await db.insertInto('calls').values(rows).execute();
        return [];
      }
      // Only the admitted rows come back (the caller starts them).
      const admitted = await db.insertInto('calls').values(rows.slice(0, free)).returningAll().execute();
      if (free < rows.length) await db.insertInto('calls').values(rows.slice(free)).execute();
      return admitted.map(toCall).sort((a, b) => a.seq - b.seq);
    },

    async get(workspaceId: string, id: string): Promise<Call | null> {
      const row = await db
        .selectFrom('calls')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toCall(row) : null;
    },

    /** A call by id alone, for the simulated carrier's far end (who it is playing). */
    async getById(id: string): Promise<Call | null> {
      const row = await db.selectFrom('calls').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toCall(row) : null;
    },

    /**
     * Deletes a call of the workspace if it is in one of `finalStatuses` (the caller's list of
     * statuses that never change again: src/calls' FINAL_STATUSES) and holds no slot; false when
     * there is no such call. Only the call row goes: nothing references it by a foreign key, and
     * the rows that name it are history or still owed to someone, so they stay: webhook logs
     * (attempts made), webhook deliveries (a post-call webhook still pending must go out; its
     * payload is self-contained) and the batch recipient it was dialed for (the batch's counts
     * include it; its listing shows no call status once the call is gone).
     */
    async remove(workspaceId: string, id: string, finalStatuses: readonly string[]): Promise<boolean> {
      if (finalStatuses.length === 0) return false;
      const result = await db
        .deleteFrom('calls')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .where('status', 'in', [...finalStatuses])
        .where('holds_slot', '=', 0)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async list(workspaceId: string, f: CallFilters): Promise<{ calls: Call[]; total: number }> {
      let q = db.selectFrom('calls').where('workspace_id', '=', workspaceId);
      if (f.agentId !== undefined) q = q.where('agent_id', '=', f.agentId);
      if (f.status !== undefined) q = q.where('status', '=', f.status);
      if (f.batchCallId !== undefined) q = q.where('batch_call_id', '=', f.batchCallId);
      if (f.leadPhone !== undefined) {
        const phone = f.leadPhone;
        q = q.where((eb) => eb.or([eb('phone_to', '=', phone), eb('phone_from', '=', phone)]));
      }
      if (f.fromDate !== undefined) {
        const from = f.fromDate;
        q = q.where((eb) => eb(eb.fn.coalesce('ringing_at', 'answered_at'), '>=', from));
      }
      if (f.toDate !== undefined) q = q.where('ended_at', '<=', f.toDate);
      if (f.durationMin !== undefined) q = q.where('duration_seconds', '>=', f.durationMin);
      if (f.durationMax !== undefined) q = q.where('duration_seconds', '<=', f.durationMax);
      // The page's keys come off an index alone and only those rows are read whole (a deferred
      // join): a deep page no longer reads every row it skips, transcripts and all.
      const page = q.select('seq').orderBy('seq', 'desc').limit(f.limit).offset(f.offset);
      const [rows, count] = await Promise.all([
        db.selectFrom('calls').selectAll().where('seq', 'in', page).orderBy('seq', 'desc').execute(),
        q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
      ]);
      return { calls: rows.map(toCall), total: Number(count?.n ?? 0) };
    },

    update: updateOne,

    /**
     * Several compare-and-set moves at once (calls ending together); each answer is what `update`
     * would answer for that move. On PostgreSQL the moves of one shape (the same patched columns)
     * are one statement, `UPDATE ... FROM (VALUES ...)`: a round trip per group instead of one
     * per call. A call named twice is moved in order, one statement each, so no move is lost.
     */
    async updateMany(moves: readonly CallMove[]): Promise<(Call | null)[]> {
      const ids = new Set(moves.map((m) => m.id));
      if (dialect !== 'postgres' || moves.length < 2 || ids.size < moves.length) {
        const moved: (Call | null)[] = [];
        for (const m of moves)
          moved.push(await updateOne(m.workspaceId, m.id, m.from, m.patch, undefined, m.whileAfterCall));
        return moved;
      }
      const now = clock.now();
      const values = moves.map((m) => patchValues(m.patch) as Record<string, unknown>);
      const shapes = new Map<string, number[]>();
      values.forEach((v, i) => {
        const key = `${moves[i]!.whileAfterCall ? 'after_call|' : '|'}${Object.keys(v).join(',')}`;
        shapes.set(key, [...(shapes.get(key) ?? []), i]);
      });
      const byId = new Map<string, Call>();
      for (const [key, indexes] of shapes) {
        const [guard = '', columns = ''] = key.split('|');
        const cols = columns === '' ? [] : columns.split(',');
        const rows = indexes.map((i) => {
          const m = moves[i]!;
          const cells = cols.map(
            (k) => sql`cast(${values[i]![k] ?? null} as ${sql.raw(PG_TYPES[k] ?? 'text')})`,
          );
          return sql`(${sql.join([sql`${m.id}`, sql`${m.workspaceId}`, sql`cast(${[...m.from]} as text[])`, ...cells])})`;
        });
        const sets = [
          ...cols.map((k) => sql`${sql.id(k)} = v.${sql.id(k)}`),
          sql`version = c.version + 1`,
          sql`updated_at = ${now}`,
        ];
        const result = await sql<Selectable<CallTable>>`update calls as c set ${sql.join(sets)}
          from (values ${sql.join(rows)}) as v(${sql.join(['id', 'workspace_id', 'from_statuses', ...cols].map((k) => sql.id(k)))})
          where c.id = v.id and c.workspace_id = v.workspace_id and c.status = any(v.from_statuses)
            ${guard === 'after_call' ? sql`and c.after_call = 1` : sql``}
          returning c.*`.execute(db);
        for (const row of result.rows) byId.set(row.id, toCall(row));
      }
      return moves.map((m) => byId.get(m.id) ?? null);
    },

    /** Calls holding a slot now. */
    busy: (workspaceId: string) => busy(db, workspaceId),

    /** Calls holding a slot and calls waiting for one, in one statement (one snapshot). */
    slotsWanted: (workspaceId: string) => slotsWanted(db, workspaceId),

    /** Whether a call of the workspace waits for a slot (one index probe, no lock). */
    async hasWaiting(workspaceId: string): Promise<boolean> {
      const row = await db
        .selectFrom('calls')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'pending')
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Gives free slots to waiting calls, oldest first (see `admittable`): each admitted call moves
     * from `pending` to `ringing`, holds a slot and is owned by `node`. Other processes admitting
     * at the same time wait for the workspace lock, so the cap holds across processes.
     */
    async admit(workspaceId: string, max: number, node: string, limit = 1000): Promise<Call[]> {
      return transact(async (trx) => {
        await lockSlots(trx, workspaceId);
        const held = await busy(trx, workspaceId);
        const ids = await admittable(trx, workspaceId, node, held, max, Math.min(limit, max - held));
        return ringing(trx, ids, node);
      });
    },

    /**
     * Hands the slots of calls that hung up to waiting calls, in one statement on PostgreSQL: each
     * release (`endedAt`, a compare and set on an in-progress call holding its slot) lets at most
     * one waiting call of the workspace take a slot (`admittable`'s rules, the workspace's
     * maximum read in the same statement). The number of calls holding slots never grows here, so
     * no lock is needed for the cap: a freed line is refilled in the release's own round trip.
     * Answers the released calls (null: the move was made by someone else first) and the
     * admitted ones, now owned by `node` (none when `admit` is false: a node shutting down).
     */
    async releaseSlots(
      workspaceId: string,
      releases: readonly { id: string; endedAt: number }[],
      node: string,
      admit = true,
    ): Promise<{ released: (Call | null)[]; admitted: Call[] }> {
      if (releases.length === 0) return { released: [], admitted: [] };
      const now = clock.now();
      if (dialect === 'postgres' && new Set(releases.map((r) => r.id)).size === releases.length) {
        const values = releases.map((r) => sql`(${r.id}, cast(${r.endedAt} as bigint))`);
        // Every part of the statement sees one snapshot: in `held` the released calls still
        // hold their slots, hence `held.n - freed.n + rn`.
        const result = await sql<Selectable<CallTable> & { kind: 'released' | 'admitted' }>`
          with v(id, ended_at) as (values ${sql.join(values)}),
          released as (
            update calls as c set holds_slot = 0, ended_at = v.ended_at, version = c.version + 1, updated_at = ${now}
            from v
            where c.workspace_id = ${workspaceId} and c.id = v.id and c.status = 'in-progress' and c.holds_slot = 1
            returning c.*
          ),
          freed as (select count(*)::int as n from released),
          held as (select count(*)::int as n from calls where workspace_id = ${workspaceId} and holds_slot = 1),
          cap as (select greatest(1, max_concurrent_calls) as max from workspaces where id = ${workspaceId}),
          candidates as materialized (
            select w.id, w.seq, coalesce(b.reserved_concurrency, 0) as reserved,
              case when w.batch_call_id is null then 0 else 1 end as from_batch
            from calls as w left join batches as b on b.id = w.batch_call_id, held, freed, cap
            where w.workspace_id = ${workspaceId} and w.status = 'pending'
              and (w.node is null or w.node = ${node})
              and (w.batch_call_id is null or b.status in ('scheduled', 'in_progress'))
              and held.n - freed.n + 1 <= cap.max - coalesce(b.reserved_concurrency, 0)
            order by from_batch, w.seq
            limit ${admit ? releases.length : 0}
            for update of w skip locked
          ),
          ranked as (select id, reserved, row_number() over (order by from_batch, seq) as rn from candidates),
          admitted as (
            update calls as c set status = 'ringing', holds_slot = 1, node = ${node}, ringing_at = ${now},
              version = c.version + 1, updated_at = ${now}
            from ranked, freed, held, cap
            where c.id = ranked.id and ranked.rn <= freed.n and held.n - freed.n + ranked.rn <= cap.max - ranked.reserved
            returning c.*
          )
          select 'released' as kind, * from released union all select 'admitted' as kind, * from admitted`.execute(
          db,
        );
        const released = new Map<string, Call>();
        const admitted: Call[] = [];
        for (const row of result.rows) {
          if (row.kind === 'released') released.set(row.id, toCall(row));
          else admitted.push(toCall(row));
        }
        return {
          released: releases.map((r) => released.get(r.id) ?? null),
          admitted: admitted.sort((a, b) => a.seq - b.seq),
        };
      }
      return transact(async (trx) => {
        const released: (Call | null)[] = [];
        for (const r of releases) {
          const row = await trx
            .updateTable('calls')
            .set({ holds_slot: 0, ended_at: r.endedAt, version: sql`version + 1`, updated_at: now })
            .where('workspace_id', '=', workspaceId)
            .where('id', '=', r.id)
            .where('status', '=', 'in-progress')
            .where('holds_slot', '=', 1)
            .returningAll()
            .executeTakeFirst();
          released.push(row ? toCall(row) : null);
        }
        const freed = released.filter((c) => c !== null).length;
        if (freed === 0 || !admit) return { released, admitted: [] };
        const workspace = await trx
          .selectFrom('workspaces')
          .select('max_concurrent_calls')
          .where('id', '=', workspaceId)
          .executeTakeFirst();
        const max = Math.max(1, workspace?.max_concurrent_calls ?? 0);
        const held = await busy(trx, workspaceId);
        const ids = await admittable(trx, workspaceId, node, held, max, Math.min(freed, max - held));
        return { released, admitted: await ringing(trx, ids, node) };
      });
    },

    /**
     * Takes a slot for a call that does not wait (an inbound call) if one is free; false when the
     * workspace is at its limit.
     */
    async takeSlot(workspaceId: string, id: string, max: number): Promise<boolean> {
      return transact(async (trx) => {
        await lockSlots(trx, workspaceId);
        if ((await busy(trx, workspaceId)) >= max) return false;
        const result = await trx
          .updateTable('calls')
          .set({ holds_slot: 1, version: sql`version + 1`, updated_at: clock.now() })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) > 0;
      });
    },

    /** Workspaces with waiting calls (for a poll that admits them). */
    async workspacesWaiting(limit = 100): Promise<string[]> {
      const rows = await db
        .selectFrom('calls')
        .select('workspace_id')
        .distinct()
        .where('status', '=', 'pending')
        .limit(limit)
        .execute();
      return rows.map((r) => r.workspace_id);
    },

    /**
     * For `eta` of a call placed on its own: the calls placed on their own waiting before `seq`
     * (a campaign's standby calls wait behind them, see `admittable`) and the calls holding
     * slots, read in one statement (one snapshot), so a call admitted meanwhile is counted once.
     */
    async queueAhead(workspaceId: string, seq: number): Promise<{ waiting: number; busy: number }> {
      const row = await db
        .selectNoFrom((eb) => [
          eb
            .selectFrom('calls')
            .select(eb.fn.countAll<number>().as('n'))
            .where('workspace_id', '=', workspaceId)
            .where('status', '=', 'pending')
            .where('batch_call_id', 'is', null)
            .where('seq', '<', seq)
            .as('waiting'),
          eb
            .selectFrom('calls')
            .select(eb.fn.countAll<number>().as('n'))
            .where('workspace_id', '=', workspaceId)
            .where('holds_slot', '=', 1)
            .as('busy'),
        ])
        .executeTakeFirstOrThrow();
      return { waiting: Number(row.waiting ?? 0), busy: Number(row.busy ?? 0) };
    },

    /** Mean duration in seconds of the workspace's last `n` ended calls that were answered. */
    async recentMeanDuration(workspaceId: string, n = 50): Promise<number | null> {
      const rows = await db
        .selectFrom('calls')
        .select('duration_seconds')
        .where('workspace_id', '=', workspaceId)
        .where('duration_seconds', '>', 0)
        .orderBy('seq', 'desc')
        .limit(n)
        .execute();
      if (rows.length === 0) return null;
      return rows.reduce((sum, r) => sum + Number(r.duration_seconds), 0) / rows.length;
    },

    /** Calls a node was running (for recovery after it stopped). */
    /** Calls of `node` that hung up and still wait for their after-the-call work. */
    async afterCallOf(node: string): Promise<Call[]> {
      const rows = await db
        .selectFrom('calls')
        .selectAll()
        .where('node', '=', node)
        .where('after_call', '=', 1)
        .orderBy('seq')
        .execute();
      return rows.map(toCall);
    },
    async ownedBy(node: string, statuses: readonly string[]): Promise<Call[]> {
      const rows = await db
        .selectFrom('calls')
        .selectAll()
        .where('node', '=', node)
        .where('status', 'in', [...statuses])
        .orderBy('seq')
        .execute();
      return rows.map(toCall);
    },
  };
}

export type CallsRepo = ReturnType<typeof callsRepo>;
