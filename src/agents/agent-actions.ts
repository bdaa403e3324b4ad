import { notFound } from '../core/index.ts';
import type { AttachedAction, Store } from '../store/index.ts';
import { attachmentsOf, type AttachActionsRequest } from './action-attachments.ts';
import { agentNotFound } from './errors.ts';

// An agent's actions: attached (all or none, with per-agent settings) and detached, each in one
// transaction that answers the agent's actions after the change.

export function agentActions(store: Pick<Store, 'transaction'>) {
  return {
    /** Attaches what the request names (see action-attachments.ts); answers the agent's actions. */
    async attachActions(workspaceId: string, request: AttachActionsRequest): Promise<AttachedAction[]> {
      const agentId = request.model_id;
      return store.transaction(async (repos) => {
        const attachments = await attachmentsOf(repos, workspaceId, request);
        await repos.actions.attach(workspaceId, agentId, attachments);
        return (await repos.actions.attachedTo(workspaceId, [agentId])).get(agentId) ?? [];
      });
    },

    /** Detaches `actionIds` (all the workspace's, else a 404 naming the others); answers the rest. */
    async detachActions(
      workspaceId: string,
      agentId: string,
      actionIds: string[],
    ): Promise<AttachedAction[]> {
      return store.transaction(async (repos) => {
        const agent = await repos.agents.get(workspaceId, agentId);
        if (!agent) throw agentNotFound(agentId, 404);
        const found = await repos.actions.findByIds(workspaceId, actionIds);
        const missing = [...new Set(actionIds)].filter((id) => !found.some((a) => a.id === id));
        if (missing.length > 0) throw notFound(`action ${missing.join(', ')} not found`);
        await repos.actions.detach(workspaceId, agent.id, actionIds);
        return (await repos.actions.attachedTo(workspaceId, [agent.id])).get(agent.id) ?? [];
      });
    },
  };
}
