import { notFound } from '../core/index.ts';
import type { Repositories, Store } from '../store/index.ts';
import { agentNotFound } from './errors.ts';

// An agent's knowledge base: one at most, so attaching one replaces the earlier one.

const baseNotFound = (id: string) => notFound(`knowledge base ${id} not found`);

/** 404 when the base or the agent is not the workspace's (the base is checked first). */
async function checkBoth(repos: Repositories, workspaceId: string, baseId: string, agentId: string) {
  if (!(await repos.knowledge.getBase(workspaceId, baseId))) throw baseNotFound(baseId);
  if (!(await repos.agents.get(workspaceId, agentId))) throw agentNotFound(agentId, 404);
}

export function agentKnowledge(store: Pick<Store, 'transaction'>) {
  return {
    /** Makes `baseId` the agent's knowledge base; answers the base it replaced (null: none). */
    async attachKnowledgeBase(workspaceId: string, baseId: string, agentId: string): Promise<string | null> {
      return store.transaction(async (repos) => {
        await checkBoth(repos, workspaceId, baseId, agentId);
        const previous = await repos.knowledge.baseOfAgent(workspaceId, agentId);
        await repos.knowledge.attachBase(workspaceId, baseId, agentId);
        return previous;
      });
    },

    /** Detaches `baseId` from the agent; false when it was not the agent's. */
    async detachKnowledgeBase(workspaceId: string, baseId: string, agentId: string): Promise<boolean> {
      return store.transaction(async (repos) => {
        await checkBoth(repos, workspaceId, baseId, agentId);
        return repos.knowledge.detachBase(workspaceId, baseId, agentId);
      });
    },
  };
}
