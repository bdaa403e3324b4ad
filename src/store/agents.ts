import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Selectable } from 'kysely';
import { StoredAgentSpec, keepValid, newId, type AgentSpec, type Clock } from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import { precompiled } from './precompiled.ts';
import { bumpAgentsVersion } from './workspaces.ts';
import type { Agent, Page } from './records.ts';
import type { AgentTable } from './schema.ts';

const storedSpec = TypeCompiler.Compile(StoredAgentSpec);

/**
 * The spec column as a typed AgentSpec, parsed once here so nothing downstream casts it. A spec
 * that fails the check (written before a field was tightened, or by hand) keeps its valid fields;
 * a read never fails because of it.
 */
export function parseAgentSpec(column: unknown): AgentSpec {
  let value: unknown;
  try {
    value = fromJson<unknown>(column);
  } catch {
    return {};
  }
  if (storedSpec.Check(value)) return value;
  return keepValid(StoredAgentSpec, value) ?? {};
}

function toAgent(row: Selectable<AgentTable>): Agent {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    type: row.type,
    name: row.name,
    spec: parseAgentSpec(row.spec),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    liveVersionId: row.live_version_id ?? null,
  };
}

export interface NewAgent {
  type: string;
  name: string;
  spec: AgentSpec;
}

// Every write bumps the workspace's agents version first (see bumpAgentsVersion); callers run
// writes in a transaction so that the bump and the change commit together.
export function agentsRepo(db: Db, clock: Clock) {
  // The reads behind GET /assistants, the hottest routes, skip Kysely's per-call build.
  const byId = precompiled(db, (q, workspaceId: string, id: string) =>
    q.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id),
  );
  const byIdAnyWorkspace = precompiled(db, (q, id: string) =>
    q.selectFrom('agents').selectAll().where('id', '=', id),
  );
  const page = precompiled(db, (q, workspaceId: string, limit: number, offset: number) =>
    q
      .selectFrom('agents')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .offset(offset),
  );
  const count = precompiled(db, (q, workspaceId: string) =>
    q
      .selectFrom('agents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId),
  );

  return {
    async create(workspaceId: string, input: NewAgent): Promise<Agent> {
      await bumpAgentsVersion(db, workspaceId);
      const now = clock.now();
      const row = await db
        .insertInto('agents')
        .values({
          id: newId(),
          workspace_id: workspaceId,
          type: input.type,
          name: input.name,
          spec: toJson(input.spec),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAgent(row);
    },

    async get(workspaceId: string, id: string): Promise<Agent | null> {
      const [row] = await byId(workspaceId, id);
      return row ? toAgent(row) : null;
    },

    /** Unscoped: only for the public (keyless) widget path, where the agent decides the workspace. */
    async getAnyWorkspace(id: string): Promise<Agent | null> {
      const [row] = await byIdAnyWorkspace(id);
      return row ? toAgent(row) : null;
    },

    /** Newest first. */
    async list(workspaceId: string, limit: number, offset: number): Promise<Page<Agent>> {
      const [rows, [total]] = await Promise.all([page(workspaceId, limit, offset), count(workspaceId)]);
      return { items: rows.map(toAgent), total: Number(total?.n ?? 0) };
    },

    /** Replaces name and spec (the caller has merged them); null when the agent is absent. */
    async update(
      workspaceId: string,
      id: string,
      next: { name: string; spec: AgentSpec },
    ): Promise<Agent | null> {
      await bumpAgentsVersion(db, workspaceId);
      const row = await db
        .updateTable('agents')
        .set({ name: next.name, spec: toJson(next.spec), updated_at: clock.now() })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toAgent(row) : null;
    },

    /** Deletes the agent, its number, action and knowledge base attachments, and its versions. */
    async delete(workspaceId: string, id: string): Promise<boolean> {
      await bumpAgentsVersion(db, workspaceId);
      await db
        .deleteFrom('agent_phone_numbers')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', id)
        .execute();
      await db
        .deleteFrom('agent_actions')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', id)
        .execute();
      await db
        .deleteFrom('agent_knowledge')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', id)
        .execute();
      await db
        .deleteFrom('agent_versions')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', id)
        .execute();
      const result = await db
        .deleteFrom('agents')
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type AgentsRepo = ReturnType<typeof agentsRepo>;
