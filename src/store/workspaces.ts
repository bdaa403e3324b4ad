import { randomBytes } from 'node:crypto';
import type { Selectable, Updateable } from 'kysely';
import { newId, type Clock, type Plan } from '../core/index.ts';
import type { Db } from './database.ts';
import { precompiled } from './precompiled.ts';
import type { Page, Workspace } from './records.ts';
import type { WorkspaceTable } from './schema.ts';

export interface NewWorkspace {
  name: string;
  plan: Plan;
  maxConcurrentCalls: number;
  parentId?: string | null;
  callsPerSecond?: number | null;
}

export type WorkspacePatch = Partial<
  Pick<
    Workspace,
    | 'name'
    | 'plan'
    | 'maxConcurrentCalls'
    | 'callsPerSecond'
    | 'includeTimelineInWebhook'
    | 'defaultAgentId'
    | 'usageSeconds'
    | 'webhookSecret'
    | 'previousWebhookSecret'
    | 'previousWebhookSecretExpiresAt'
  >
>;

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Marks the workspace's agents as changed. Call it in the same transaction as the change, before
 * the change: a reader that reads the version first and the data second can then only pair an old
 * version with newer data (a wasted cache entry), never a new version with old data.
 */
export async function bumpAgentsVersion(db: Db, workspaceId: string): Promise<void> {
  await db
    .updateTable('workspaces')
    .set((eb) => ({ agents_version: eb('agents_version', '+', 1) }))
    .where('id', '=', workspaceId)
    .execute();
}

export function toWorkspace(row: Selectable<WorkspaceTable>): Workspace {
  return {
    id: row.id,
    parentId: row.parent_id,
    name: row.name,
    plan: row.plan as Plan,
    maxConcurrentCalls: row.max_concurrent_calls,
    callsPerSecond: row.calls_per_second,
    webhookSecret: row.webhook_secret,
    previousWebhookSecret: row.previous_webhook_secret ?? null,
    previousWebhookSecretExpiresAt:
      row.previous_webhook_secret_expires_at == null ? null : Number(row.previous_webhook_secret_expires_at),
    includeTimelineInWebhook: row.include_timeline_in_webhook === 1,
    defaultAgentId: row.default_agent_id,
    usageSeconds: row.usage_seconds,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function workspacesRepo(db: Db, clock: Clock) {
  const versionOf = precompiled(db, (q, id: string) =>
    q.selectFrom('workspaces').select('agents_version').where('id', '=', id),
  );

  return {
    /** The workspace's agents version (see bumpAgentsVersion); 0 for an unknown workspace. */
    async agentsVersion(id: string): Promise<number> {
      const [row] = await versionOf(id);
      return Number(row?.agents_version ?? 0);
    },

    async create(input: NewWorkspace): Promise<Workspace> {
      const now = clock.now();
      const row = await db
        .insertInto('workspaces')
        .values({
          id: newId(),
          parent_id: input.parentId ?? null,
          name: input.name,
          plan: input.plan,
          max_concurrent_calls: input.maxConcurrentCalls,
          calls_per_second: input.callsPerSecond ?? null,
          webhook_secret: newWebhookSecret(),
          include_timeline_in_webhook: 0,
          default_agent_id: null,
          usage_seconds: 0,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toWorkspace(row);
    },

    async get(id: string): Promise<Workspace | null> {
      const row = await db
        .selectFrom('workspaces')
        .selectAll()
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row ? toWorkspace(row) : null;
    },

    /** A subaccount of `parentId`; another parent's subaccount is as absent as a missing one. */
    async getChild(parentId: string, id: string): Promise<Workspace | null> {
      const row = await db
        .selectFrom('workspaces')
        .selectAll()
        .where('id', '=', id)
        .where('parent_id', '=', parentId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row ? toWorkspace(row) : null;
    },

    /** Workspaces that are not subaccounts, oldest first (operator listing). */
    async listTopLevel(): Promise<Workspace[]> {
      const rows = await db
        .selectFrom('workspaces')
        .selectAll()
        .where('parent_id', 'is', null)
        .where('deleted_at', 'is', null)
        .orderBy('seq', 'asc')
        .execute();
      return rows.map(toWorkspace);
    },

    async listChildren(parentId: string, limit: number, offset: number): Promise<Page<Workspace>> {
      const base = db
        .selectFrom('workspaces')
        .where('parent_id', '=', parentId)
        .where('deleted_at', 'is', null);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toWorkspace), total: Number(count.n) };
    },

    async update(id: string, patch: WorkspacePatch): Promise<Workspace | null> {
      const values: Updateable<WorkspaceTable> = { updated_at: clock.now() };
      if (patch.name !== undefined) values.name = patch.name;
      if (patch.plan !== undefined) values.plan = patch.plan;
      if (patch.maxConcurrentCalls !== undefined) values.max_concurrent_calls = patch.maxConcurrentCalls;
      if (patch.callsPerSecond !== undefined) values.calls_per_second = patch.callsPerSecond;
      if (patch.includeTimelineInWebhook !== undefined)
        values.include_timeline_in_webhook = patch.includeTimelineInWebhook ? 1 : 0;
      if (patch.defaultAgentId !== undefined) values.default_agent_id = patch.defaultAgentId;
      if (patch.usageSeconds !== undefined) values.usage_seconds = patch.usageSeconds;
      if (patch.webhookSecret !== undefined) values.webhook_secret = patch.webhookSecret;
      if (patch.previousWebhookSecret !== undefined)
        values.previous_webhook_secret = patch.previousWebhookSecret;
      if (patch.previousWebhookSecretExpiresAt !== undefined)
        values.previous_webhook_secret_expires_at = patch.previousWebhookSecretExpiresAt;
      const row = await db
        .updateTable('workspaces')
        .set(values)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? toWorkspace(row) : null;
    },

    /**
     * Replaces the webhook secret and keeps the old one as the previous secret for
     * `keepPreviousMs` (webhooks are signed with both meanwhile). One statement: two concurrent
     * rotations cannot lose a secret that was handed out.
     */
    async rotateWebhookSecret(id: string, keepPreviousMs = 24 * 60 * 60 * 1000): Promise<Workspace | null> {
      const now = clock.now();
      const row = await db
        .updateTable('workspaces')
        .set((eb) => ({
          previous_webhook_secret: eb.ref('webhook_secret'),
          previous_webhook_secret_expires_at: now + keepPreviousMs,
          webhook_secret: newWebhookSecret(),
          updated_at: now,
        }))
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row ? toWorkspace(row) : null;
    },

    /** Marks the workspace deleted; its keys are removed by the caller in the same transaction. */
    async softDelete(id: string): Promise<boolean> {
      const now = clock.now();
      const result = await db
        .updateTable('workspaces')
        .set({ deleted_at: now, updated_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Adds call time to the workspace's usage (`minutes_used`). */
    async addUsage(id: string, seconds: number): Promise<void> {
      if (seconds <= 0) return;
      await db
        .updateTable('workspaces')
        .set((eb) => ({ usage_seconds: eb('usage_seconds', '+', seconds) }))
        .where('id', '=', id)
        .execute();
    },
  };
}

export type WorkspacesRepo = ReturnType<typeof workspacesRepo>;
