import { notFound } from '../core/index.ts';
import type { Action, ActionPatch, Store } from '../store/index.ts';

// An action's own changes: its configuration (merged by the request's rules) and its deletion,
// which detaches it from every agent.

const actionNotFound = (id: string, status: 400 | 404 = 404) => notFound(`action ${id} not found`, status);

export function actionService(store: Pick<Store, 'transaction'>) {
  return {
    /**
     * Replaces the action's name and configuration with what `change` makes of the stored action
     * (src/api/actions/normalize.ts merges and checks them). The specification lists only 400 for
     * this operation: an unknown action is a 400 not_found.
     */
    async update(workspaceId: string, id: string, change: (current: Action) => ActionPatch): Promise<Action> {
      return store.transaction(async (repos) => {
        const current = await repos.actions.get(workspaceId, id);
        if (!current) throw actionNotFound(id, 400);
        const next = await repos.actions.update(workspaceId, id, change(current));
        if (!next) throw actionNotFound(id, 400);
        return next;
      });
    },

    /** Deletes the action, detaching it from every agent; 404 when it is not the workspace's. */
    async remove(workspaceId: string, id: string): Promise<void> {
      const deleted = await store.transaction((repos) => repos.actions.delete(workspaceId, id));
      if (!deleted) throw actionNotFound(id);
    },
  };
}
