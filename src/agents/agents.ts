import type { AgentSpec } from '../core/index.ts';
import type { Agent, Store } from '../store/index.ts';
import { attachOwnNumber } from './agent-numbers.ts';
import { agentNotFound } from './errors.ts';

// An agent's own record, each change in one transaction. Creating an agent, or changing its
// `phone_number`, also attaches that number when the workspace owns it.

/** An agent as changed, and the number attached with it ('' when none). */
export interface AgentChange {
  agent: Agent;
  phone: string;
}

export interface NewAgentInput {
  type: string;
  name: string;
  spec: AgentSpec;
}

export interface AgentUpdate {
  /** The new name; absent: the current one. */
  name?: string | undefined;
  /**
   * The next spec from the stored one: the request's defaults and key-by-key merge
   * (src/api/assistants/rules.ts), run on the spec read in this transaction.
   */
  spec: (current: AgentSpec) => AgentSpec;
  /** The update gives `phone_number`: attach that number when the workspace owns it. */
  attachNumber: boolean;
}

export function agentRecords(store: Pick<Store, 'transaction'>) {
  return {
    async create(workspaceId: string, input: NewAgentInput): Promise<AgentChange> {
      return store.transaction(async (repos) => {
        const agent = await repos.agents.create(workspaceId, input);
        return { agent, phone: await attachOwnNumber(repos, agent) };
      });
    },

    /** 400 not_found when the agent is not the workspace's. */
    async update(workspaceId: string, id: string, change: AgentUpdate): Promise<AgentChange> {
      return store.transaction(async (repos) => {
        const current = await repos.agents.get(workspaceId, id);
        if (!current) throw agentNotFound(id);
        const spec = change.spec(current.spec);
        const agent = await repos.agents.update(workspaceId, id, { name: change.name ?? current.name, spec });
        if (!agent) throw agentNotFound(id);
        return { agent, phone: change.attachNumber ? await attachOwnNumber(repos, agent) : '' };
      });
    },

    /** Deletes the agent with its attachments and versions; 400 not_found when it is not there. */
    async remove(workspaceId: string, id: string): Promise<void> {
      const deleted = await store.transaction((repos) => repos.agents.delete(workspaceId, id));
      if (!deleted) throw agentNotFound(id);
    },
  };
}
