import { notFound, type Plan } from '../core/index.ts';
import type { Repositories, Store, Workspace, WorkspacePatch } from '../store/index.ts';

// Subaccounts: child workspaces of the caller's. One is created with its first API key, and
// deleted by revoking its keys and marking it deleted, each in one transaction.

export interface NewSubaccount {
  name: string;
  /** Absent: the parent's. */
  plan?: Plan | undefined;
  /** Absent: the parent's. */
  maxConcurrentCalls?: number | undefined;
}

const missing = (id: string) => notFound(`subaccount ${id} not found`);

/** The parent's child `id`; 404 when it has none such. */
async function childOf(repos: Repositories, parentId: string, id: string): Promise<Workspace> {
  const child = await repos.workspaces.getChild(parentId, id);
  if (!child) throw missing(id);
  return child;
}

export function subaccountService(store: Pick<Store, 'transaction'>) {
  return {
    /** Creates the subaccount and its first API key; the key's secret is answered once. */
    async create(parent: Workspace, input: NewSubaccount): Promise<{ workspace: Workspace; secret: string }> {
      return store.transaction(async (repos) => {
        const workspace = await repos.workspaces.create({
          name: input.name,
          plan: input.plan ?? parent.plan,
          maxConcurrentCalls: input.maxConcurrentCalls ?? parent.maxConcurrentCalls,
          parentId: parent.id,
        });
        const key = await repos.apiKeys.create(workspace.id, 'subaccount');
        return { workspace, secret: key.secret };
      });
    },

    async update(parentId: string, id: string, patch: WorkspacePatch): Promise<Workspace> {
      const updated = await store.transaction(async (repos) => {
        const child = await childOf(repos, parentId, id);
        return repos.workspaces.update(child.id, patch);
      });
      if (!updated) throw missing(id);
      return updated;
    },

    /** Revokes the subaccount's keys and deletes it. */
    async remove(parentId: string, id: string): Promise<void> {
      await store.transaction(async (repos) => {
        const child = await childOf(repos, parentId, id);
        await repos.apiKeys.revokeAll(child.id);
        await repos.workspaces.softDelete(child.id);
      });
    },
  };
}
