import { groupCommit, type Logger } from '../core/index.ts';
import type { Call, Store, Workspace } from '../store/index.ts';

// Slots given back at hang-up. Releases requested while one commits share the next statement (a
// group commit of their own: a release must not wait behind the last moves of calls that ended
// just before), and that statement hands each freed slot to a call waiting for one (a campaign's
// standby calls): the refill of a freed line is that one round trip (`calls.releaseSlots`).

export interface SlotRelease {
  workspace: Workspace;
  callId: string;
  /** The hang-up: the call's `end_time`. */
  endedAt: number;
}

export interface SlotReleaserOptions {
  store: Store;
  logger: Logger;
  /** This process: the owner of the calls it admits. */
  node: string;
  /** Whether this process may start calls now (not when stopping). */
  mayAdmit: () => boolean;
  /** Calls admitted by a release: this process starts them. */
  onAdmitted: (workspace: Workspace, admitted: Call[]) => void;
  /** Slots freed that no waiting call could take here (reserved slots, a locked row...). */
  onUnfilled: (workspace: Workspace) => void;
}

/** Releases one call's slot (null: the call had moved on already), with the others waiting. */
export function createSlotReleaser(
  options: SlotReleaserOptions,
): (release: SlotRelease) => Promise<Call | null> {
  const { store, node } = options;
  return groupCommit<SlotRelease, Call | null>({
    maxGroup: 500,
    onGroupFailed: (err, size) =>
      options.logger.warn({ err, size }, 'a group of slot releases failed; committing one by one'),
    async commit(items) {
      const byWorkspace = new Map<string, { workspace: Workspace; indexes: number[] }>();
      items.forEach((item, i) => {
        const entry = byWorkspace.get(item.workspace.id) ?? { workspace: item.workspace, indexes: [] };
        entry.indexes.push(i);
        byWorkspace.set(item.workspace.id, entry);
      });
      const results: (Call | null)[] = items.map(() => null);
      for (const { workspace, indexes } of byWorkspace.values()) {
        const { released, admitted } = await store.calls.releaseSlots(
          workspace.id,
          indexes.map((i) => ({ id: items[i]!.callId, endedAt: items[i]!.endedAt })),
          node,
          options.mayAdmit(),
        );
        indexes.forEach((i, k) => (results[i] = released[k] ?? null));
        if (admitted.length > 0) options.onAdmitted(workspace, admitted);
        if (admitted.length < released.filter((c) => c !== null).length) options.onUnfilled(workspace);
      }
      return results;
    },
  });
}
