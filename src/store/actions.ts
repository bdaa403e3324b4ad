import type { Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import type { Action, ActionKind, Page } from './records.ts';
import type { ActionTable } from './schema.ts';
import { bumpAgentsVersion } from './workspaces.ts';

function toAction(row: Selectable<ActionTable>): Action {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    kind: row.kind as ActionKind,
    name: row.name,
    config: fromJson<Record<string, unknown>>(row.config) ?? {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewAction {
  kind: ActionKind;
  name: string;
  config: Record<string, unknown>;
}

/** The new name and configuration (the caller has merged them). */
export interface ActionPatch {
  name: string;
  config: Record<string, unknown>;
}

// Agent reads (include_actions=true) show attached actions and their configuration, so every write
// that can change such a read (attach, detach, and updating or deleting an attached action) bumps
// the workspace's agents version first, in the caller's transaction (see bumpAgentsVersion).
export function actionsRepo(db: Db, clock: Clock) {
  async function isAttached(workspaceId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('agent_actions')
      .select('agent_id')
      .where('workspace_id', '=', workspaceId)
      .where('action_id', '=', id)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  return {
    async create(workspaceId: string, input: NewAction): Promise<Action> {
      const now = clock.now();
      const row = await db
        .insertInto('actions')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          kind: input.kind,
          name: input.name,
          config: toJson(input.config),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAction(row);
    },

    async get(workspaceId: string, id: string): Promise<Action | null> {
      const row = await db
        .selectFrom('actions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? toAction(row) : null;
    },

    /** The workspace's actions among `ids` (unknown ones are simply absent). */
    async findByIds(workspaceId: string, ids: string[]): Promise<Action[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('actions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...new Set(ids)])
        .orderBy('seq')
        .execute();
      return rows.map(toAction);
    },

    /** Newest first. */
    async list(workspaceId: string, limit: number, offset: number): Promise<Page<Action>> {
      const base = db.selectFrom('actions').where('workspace_id', '=', workspaceId);
      const [rows, count] = await Promise.all([
        base.selectAll().orderBy('seq', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toAction), total: Number(count.n) };
    },

    /** Replaces name and config; null when the action is absent. */
    async update(workspaceId: string, id: string, patch: ActionPatch): Promise<Action | null> {
      if (await isAttached(workspaceId, id)) await bumpAgentsVersion(db, workspaceId);
      const row = await db
        .updateTable('actions')
        .set({ name: patch.name, config: toJson(patch.config), updated_at: clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toAction(row) : null;
    },

    /** Deletes the action and detaches it from every agent; false when it is absent. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      if (await isAttached(workspaceId, id)) {
        await bumpAgentsVersion(db, workspaceId);
        await db
          .deleteFrom('agent_actions')
          .where('workspace_id', '=', workspaceId)
          .where('action_id', '=', id)
          .execute();
      }
      const result = await db
        .deleteFrom('actions')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * Attaches actions to an agent; attaching one already attached changes nothing. The caller
     * has checked that the agent and the actions belong to the workspace.
     */
    async attach(workspaceId: string, agentId: string, actionIds: string[]): Promise<void> {
      if (actionIds.length === 0) return;
      await bumpAgentsVersion(db, workspaceId);
      const now = clock.now();
      await db
        .insertInto('agent_actions')
        .values(
          [...new Set(actionIds)].map((id) => ({
            workspace_id: workspaceId,
            agent_id: agentId,
            action_id: id,
            created_at: now,
          })),
        )
        .onConflict((oc) => oc.columns(['agent_id', 'action_id']).doNothing())
        .execute();
    },

    /** Detaches actions from an agent; answers how many were attached. */
    async detach(workspaceId: string, agentId: string, actionIds: string[]): Promise<number> {
      if (actionIds.length === 0) return 0;
      await bumpAgentsVersion(db, workspaceId);
      const result = await db
        .deleteFrom('agent_actions')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId)
        .where('action_id', 'in', [...new Set(actionIds)])
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Actions attached to each of the given agents, in the order they were attached. */
    async attachedTo(workspaceId: string, agentIds: string[]): Promise<Map<string, Action[]>> {
      const byAgent = new Map<string, Action[]>(agentIds.map((id) => [id, []]));
      if (agentIds.length === 0) return byAgent;
      const rows = await db
        .selectFrom('agent_actions as aa')
        .innerJoin('actions as a', 'a.id', 'aa.action_id')
        .selectAll('a')
        .select('aa.agent_id')
        .where('aa.workspace_id', '=', workspaceId)
        // The action must be the workspace's too, whatever an attachment row says.
        .where('a.workspace_id', '=', workspaceId)
        .where('aa.agent_id', 'in', [...new Set(agentIds)])
        .orderBy('aa.created_at')
        .orderBy('a.seq')
        .execute();
      for (const row of rows) byAgent.get(row.agent_id)?.push(toAction(row));
      return byAgent;
    },
  };
}

export type ActionsRepo = ReturnType<typeof actionsRepo>;
