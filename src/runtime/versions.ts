import type { Action, Agent, AgentVersion, Repositories } from '../store/index.ts';
import { knowledgeBasesOf, type AttachedKnowledgeBase } from './knowledge.ts';

// Which agent a conversation runs: a published version (its snapshot's config, actions and
// knowledge base attachment), or the draft (the agent as stored now). A knowledge base's contents
// are live data either way: a version names the base, the retrieval reads what it holds today.

/** What a conversation of one agent version runs, read once for every conversation that needs it. */
export interface AgentRun {
  /** The agent with the version's name and config; null: the agent is gone. */
  agent: Agent | null;
  /** The version run; null: the draft. */
  versionId: string | null;
  attachedActions: readonly Action[];
  knowledgeBase: AttachedKnowledgeBase | null;
}

/** The agent as a version has it: the version's name, type and config on the agent's identity. */
export function agentOfVersion(agent: Agent, version: AgentVersion | null): Agent {
  if (!version) return agent;
  const { type, name, spec } = version.snapshot;
  return { ...agent, type: type || agent.type, name: name || agent.name, spec };
}

/** The key of one agent version among the runs of `prepareRuns`. */
export const runKey = (agentId: string, versionId: string | null) => `${agentId}\0${versionId ?? ''}`;

/**
 * The runs of several agent versions in a few reads whatever their number (an admission of
 * hundreds of calls): each agent, each version and each knowledge base once; the draft's actions
 * and bases in one read each.
 */
export async function prepareRuns(
  repos: Repositories,
  workspaceId: string,
  wanted: readonly { agentId: string; versionId: string | null }[],
): Promise<Map<string, AgentRun>> {
  const agentIds = [...new Set(wanted.map((w) => w.agentId))];
  const draftIds = [...new Set(wanted.filter((w) => w.versionId === null).map((w) => w.agentId))];
  const versionIds = [...new Set(wanted.flatMap((w) => (w.versionId === null ? [] : [w.versionId])))];
  const [agentList, attached, draftBases, versions] = await Promise.all([
    Promise.all(agentIds.map((id) => repos.agents.get(workspaceId, id))),
    repos.actions.attachedTo(workspaceId, draftIds),
    knowledgeBasesOf(repos, workspaceId, draftIds),
    repos.agentVersions.getMany(workspaceId, versionIds),
  ]);
  const agents = new Map(agentIds.map((id, i) => [id, agentList[i] ?? null]));
  const versionBases = await basesOfVersions(repos, workspaceId, [...versions.values()]);
  const runs = new Map<string, AgentRun>();
  for (const { agentId, versionId } of wanted) {
    const agent = agents.get(agentId) ?? null;
    if (versionId === null) {
      runs.set(runKey(agentId, null), {
        agent,
        versionId,
        attachedActions: attached.get(agentId) ?? [],
        knowledgeBase: draftBases.get(agentId) ?? null,
      });
      continue;
    }
    const version = versions.get(versionId);
    // A version of another agent, or one deleted with its agent, runs nothing.
    const usable = agent && version && version.agentId === agentId ? version : null;
    runs.set(runKey(agentId, versionId), {
      agent: usable && agent ? agentOfVersion(agent, usable) : null,
      versionId,
      attachedActions: usable?.snapshot.actions ?? [],
      knowledgeBase: usable ? (versionBases.get(usable.id) ?? null) : null,
    });
  }
  return runs;
}

/** The one run of an agent version (a chat, an inbound call, a simulation). */
export async function prepareRun(
  repos: Repositories,
  agent: Agent,
  versionId: string | null,
): Promise<AgentRun> {
  if (versionId === null) {
    const [attached, bases] = await Promise.all([
      repos.actions.attachedTo(agent.workspaceId, [agent.id]),
      knowledgeBasesOf(repos, agent.workspaceId, [agent.id]),
    ]);
    return {
      agent,
      versionId,
      attachedActions: attached.get(agent.id) ?? [],
      knowledgeBase: bases.get(agent.id) ?? null,
    };
  }
  const version = await repos.agentVersions.get(agent.workspaceId, agent.id, versionId);
  if (!version) return { agent: null, versionId, attachedActions: [], knowledgeBase: null };
  const bases = await basesOfVersions(repos, agent.workspaceId, [version]);
  return {
    agent: agentOfVersion(agent, version),
    versionId,
    attachedActions: version.snapshot.actions,
    knowledgeBase: bases.get(version.id) ?? null,
  };
}

/** Each version's knowledge base (the first attached that still exists), each base read once. */
async function basesOfVersions(
  repos: Repositories,
  workspaceId: string,
  versions: readonly AgentVersion[],
): Promise<Map<string, AttachedKnowledgeBase>> {
  const baseIds = [...new Set(versions.flatMap((v) => v.snapshot.knowledgeBases.map((b) => b.id)))];
  const bases = new Map<string, AttachedKnowledgeBase>();
  await Promise.all(
    baseIds.map(async (id) => {
      const base = await repos.knowledge.getBase(workspaceId, id);
      if (base) bases.set(id, { id, ragUseCondition: base.ragUseCondition });
    }),
  );
  const result = new Map<string, AttachedKnowledgeBase>();
  for (const version of versions) {
    const base = version.snapshot.knowledgeBases.map((b) => bases.get(b.id)).find((b) => b !== undefined);
    if (base) result.set(version.id, base);
  }
  return result;
}
