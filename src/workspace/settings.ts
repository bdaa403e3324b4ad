import { invalidInput, notFound } from '../core/index.ts';
import type { Store, Workspace, WorkspacePatch } from '../store/index.ts';

// The caller's own workspace: its settings (the inbound fallback agent must be one of its agents)
// and its API keys (a workspace keeps at least one).

export function workspaceSettings(store: Pick<Store, 'transaction' | 'exclusively'>) {
  return {
    /** Applies `patch`; a `defaultAgentId` must name an agent of the workspace (400 otherwise). */
    async update(workspaceId: string, patch: WorkspacePatch): Promise<Workspace> {
      const updated = await store.transaction(async (repos) => {
        const agentId = patch.defaultAgentId;
        if (agentId && !(await repos.agents.get(workspaceId, agentId))) {
          throw invalidInput(`body.default_agent_id: agent ${agentId} not found`, [
            'body',
            'default_agent_id',
          ]);
        }
        return repos.workspaces.update(workspaceId, patch);
      });
      if (!updated) throw notFound('workspace not found', 404);
      return updated;
    },

    /** Revokes one key; 404 when it is not the workspace's, 400 when it is the last one. */
    async revokeKey(workspaceId: string, keyId: string): Promise<void> {
      // Serialized per workspace: two concurrent revokes of its last two keys must not both pass
      // the "keeps at least one" check (PostgreSQL's read committed would let them).
      await store.exclusively(`api-keys:${workspaceId}`, async (repos) => {
        const keys = await repos.apiKeys.list(workspaceId);
        if (!keys.some((k) => k.id === keyId)) throw notFound(`API key ${keyId} not found`);
        if (keys.length === 1) {
          throw invalidInput('cannot revoke the last API key of a workspace', ['path', 'key_id']);
        }
        await repos.apiKeys.revoke(workspaceId, keyId);
      });
    },
  };
}
