import type { Selectable } from 'kysely';
import { newId, type Clock } from '../core/index.ts';
import { actionsRepo } from './actions.ts';
import { agentsRepo } from './agents.ts';
import { parseSnapshot, snapshotToJson, type AgentSnapshot } from './agent-snapshot.ts';
import type { Db } from './database.ts';
import type { Transact } from './knowledge.ts';
import type { Agent, Page } from './records.ts';
import type { AgentVersionTable } from './schema.ts';
import { bumpAgentsVersion } from './workspaces.ts';

// Published agent versions (migration 020). Publishing snapshots the draft (the agent row, its
// action attachments with the actions' definitions, its knowledge base attachment) and makes the
// new version live; restoring writes a snapshot back as the draft. Every write bumps the
// workspace's agents version first: it changes agent reads (`live_version_id`), and on
// PostgreSQL the bump's row lock serializes the workspace's agent writes, so two publishes
// cannot take the same number (the unique index is the backstop).

export interface AgentVersionSummary {
  id: string;
  workspaceId: string;
  agentId: string;
  /** 1..n per agent, in publishing order. */
  number: number;
  description: string | null;
  createdAt: number;
}

export interface AgentVersion extends AgentVersionSummary {
  snapshot: AgentSnapshot;
}

/** What a restore could not bring back: attachments of actions or bases deleted since. */
export interface RestoreResult {
  agent: Agent;
  missingActionIds: string[];
  missingKnowledgeBaseIds: string[];
}

type SummaryRow = Omit<Selectable<AgentVersionTable>, 'snapshot' | 'seq'>;

function toSummary(row: SummaryRow): AgentVersionSummary {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    number: Number(row.number),
    description: row.description,
    createdAt: Number(row.created_at),
  };
}

function toVersion(row: SummaryRow & { snapshot: unknown }): AgentVersion {
  return { ...toSummary(row), snapshot: parseSnapshot(row.snapshot, row.workspace_id) };
}

const SUMMARY = ['id', 'workspace_id', 'agent_id', 'number', 'description', 'created_at'] as const;

/** The agent's draft as a snapshot; null when the agent is not the workspace's. */
export async function draftSnapshot(
  db: Db,
  clock: Clock,
  workspaceId: string,
  agentId: string,
): Promise<{ agent: Agent; snapshot: AgentSnapshot } | null> {
  const agent = await agentsRepo(db, clock).get(workspaceId, agentId);
  if (!agent) return null;
  const [attached, base] = await Promise.all([
    actionsRepo(db, clock).attachedTo(workspaceId, [agentId]),
    db
      .selectFrom('agent_knowledge')
      .select('knowledge_base_id')
      .where('workspace_id', '=', workspaceId)
      .where('agent_id', '=', agentId)
      .executeTakeFirst(),
  ]);
  return {
    agent,
    snapshot: {
      type: agent.type,
      name: agent.name,
      spec: agent.spec,
      actions: attached.get(agentId) ?? [],
      knowledgeBases: base ? [{ id: base.knowledge_base_id }] : [],
    },
  };
}

async function versionOf(db: Db, workspaceId: string, agentId: string, id: string) {
  const row = await db
    .selectFrom('agent_versions')
    .select([...SUMMARY, 'snapshot'])
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toVersion(row) : null;
}

export function agentVersionsRepo(db: Db, clock: Clock, transact: Transact) {
  return {
    /** Snapshots the draft as the next version and makes it live; null when the agent is absent. */
    async publish(
      workspaceId: string,
      agentId: string,
      description: string | null,
    ): Promise<AgentVersion | null> {
      return transact(async (trx) => {
        await bumpAgentsVersion(trx, workspaceId);
        const draft = await draftSnapshot(trx, clock, workspaceId, agentId);
        if (!draft) return null;
        const last = await trx
          .selectFrom('agent_versions')
          .select((eb) => eb.fn.max('number').as('n'))
          .where('workspace_id', '=', workspaceId)
          .where('agent_id', '=', agentId)
          .executeTakeFirst();
        const row = await trx
          .insertInto('agent_versions')
          .values({
            id: newId(),
            workspace_id: workspaceId,
            agent_id: agentId,
            number: Number(last?.n ?? 0) + 1,
            description,
            snapshot: snapshotToJson(draft.snapshot),
            created_at: clock.now(),
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .updateTable('agents')
          .set({ live_version_id: row.id })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', agentId)
          .execute();
        return toVersion(row);
      });
    },

    /** The agent's draft as a snapshot (what publishing would store); null: no such agent. */
    async draft(workspaceId: string, agentId: string): Promise<AgentSnapshot | null> {
      return (await draftSnapshot(db, clock, workspaceId, agentId))?.snapshot ?? null;
    },

    /** One version of the agent (null: not that agent's in that workspace). */
    get(workspaceId: string, agentId: string, id: string): Promise<AgentVersion | null> {
      return versionOf(db, workspaceId, agentId, id);
    },

    /** The workspace's versions among `ids`, in one read (admissions read each version once). */
    async getMany(workspaceId: string, ids: readonly string[]): Promise<Map<string, AgentVersion>> {
      const result = new Map<string, AgentVersion>();
      if (ids.length === 0) return result;
      const rows = await db
        .selectFrom('agent_versions')
        .select([...SUMMARY, 'snapshot'])
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...new Set(ids)])
        .execute();
      for (const row of rows) result.set(row.id, toVersion(row));
      return result;
    },

    /** Newest first, without the snapshots. */
    async list(
      workspaceId: string,
      agentId: string,
      limit: number,
      offset: number,
    ): Promise<Page<AgentVersionSummary>> {
      const base = db
        .selectFrom('agent_versions')
        .where('workspace_id', '=', workspaceId)
        .where('agent_id', '=', agentId);
      const [rows, count] = await Promise.all([
        base.select(SUMMARY).orderBy('number', 'desc').limit(limit).offset(offset).execute(),
        base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toSummary), total: Number(count.n) };
    },

    /** Makes a published version live (a roll back or forward); the draft is untouched. */
    async setLive(workspaceId: string, agentId: string, id: string): Promise<boolean> {
      return transact(async (trx) => {
        if (!(await versionOf(trx, workspaceId, agentId, id))) return false;
        await bumpAgentsVersion(trx, workspaceId);
        const result = await trx
          .updateTable('agents')
          .set({ live_version_id: id })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', agentId)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) > 0;
      });
    },

    /**
     * Writes the version back as the draft: name and config, and the action and knowledge base
     * attachments (with their settings). Actions and bases deleted since cannot be attached and
     * are reported. Does not publish. Null when the version is not the agent's.
     */
    async restore(workspaceId: string, agentId: string, id: string): Promise<RestoreResult | null> {
      return transact(async (trx) => {
        const version = await versionOf(trx, workspaceId, agentId, id);
        if (!version) return null;
        const { snapshot } = version;
        // Repositories on the transaction: the agent write bumps the agents version first.
        const agent = await agentsRepo(trx, clock).update(workspaceId, agentId, {
          name: snapshot.name,
          spec: snapshot.spec,
        });
        if (!agent) return null;
        const actions = actionsRepo(trx, clock);
        const existing = new Set(
          (
            await actions.findByIds(
              workspaceId,
              snapshot.actions.map((a) => a.id),
            )
          ).map((a) => a.id),
        );
        await trx
          .deleteFrom('agent_actions')
          .where('workspace_id', '=', workspaceId)
          .where('agent_id', '=', agentId)
          .execute();
        await actions.attach(
          workspaceId,
          agentId,
          snapshot.actions
            .filter((a) => existing.has(a.id))
            .map((a) => ({
              actionId: a.id,
              attachmentType: a.attachment.attachmentType,
              // '' clears (see NewAttachment): null is "keep", which would keep nothing here anyway.
              triggerCondition: a.attachment.triggerCondition ?? '',
              inputVariablesMapping: a.attachment.inputVariablesMapping,
            })),
        );
        await trx
          .deleteFrom('agent_knowledge')
          .where('workspace_id', '=', workspaceId)
          .where('agent_id', '=', agentId)
          .execute();
        const baseIds = snapshot.knowledgeBases.map((b) => b.id);
        const bases =
          baseIds.length === 0
            ? []
            : await trx
                .selectFrom('knowledge_bases')
                .select('id')
                .where('workspace_id', '=', workspaceId)
                .where('id', 'in', baseIds)
                .execute();
        const liveBase = baseIds.find((b) => bases.some((r) => r.id === b));
        if (liveBase) {
          await trx
            .insertInto('agent_knowledge')
            .values({
              workspace_id: workspaceId,
              agent_id: agentId,
              knowledge_base_id: liveBase,
              created_at: clock.now(),
            })
            .execute();
        }
        return {
          agent,
          missingActionIds: snapshot.actions.filter((a) => !existing.has(a.id)).map((a) => a.id),
          missingKnowledgeBaseIds: baseIds.filter((b) => !bases.some((r) => r.id === b)),
        };
      });
    },
  };
}

export type AgentVersionsRepo = ReturnType<typeof agentVersionsRepo>;
