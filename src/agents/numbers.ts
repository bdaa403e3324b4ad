import { notFound } from '../core/index.ts';
import type { Repositories, Store } from '../store/index.ts';
import { bareSlug } from './agent-numbers.ts';

// A phone number's own changes: its name and carrier settings, the agent it is attached to, its
// deletion. A number is named by its slug as the client gave it (with or without `+`).

export type NumberRecord = NonNullable<Awaited<ReturnType<Repositories['phoneNumbers']['getBySlug']>>>;
export type NumberPatch = Parameters<Repositories['phoneNumbers']['update']>[2];

export interface NumberUpdate {
  /**
   * The number's new fields from its current record (src/api/numbers/trunk.ts resolves carrier
   * settings against the stored ones); null: none change.
   */
  fields: (current: NumberRecord) => NumberPatch | null;
  /** Attach the number to this agent (a 404 when it is not the workspace's). */
  agentId?: string | undefined;
}

const numberNotFound = (slug: string) => notFound(`phone number ${slug} not found`);

export function numberService(store: Pick<Store, 'transaction'>) {
  return {
    /** Changes the number and/or attaches it to an agent, in one transaction; answers the number. */
    async update(workspaceId: string, slug: string, change: NumberUpdate): Promise<NumberRecord> {
      return store.transaction(async (repos) => {
        const number = await repos.phoneNumbers.getBySlug(workspaceId, bareSlug(slug));
        if (!number) throw numberNotFound(slug);
        const patch = change.fields(number);
        // Unknown agent: 404, as on PUT /assistants/{model_id}/phone_numbers.
        const agent =
          change.agentId === undefined ? null : await repos.agents.get(workspaceId, change.agentId);
        if (change.agentId !== undefined && !agent) {
          throw notFound(`body.model_id: agent ${change.agentId} not found`);
        }
        const saved = patch ? await repos.phoneNumbers.update(workspaceId, number.id, patch) : number;
        // The attach rule (and the agents version bump that agent reads depend on) is the store's.
        if (agent) await repos.phoneNumbers.attach(workspaceId, agent.id, [number.id]);
        return saved ?? number;
      });
    },

    /** Deletes the number, detaching it from every agent; 404 when the workspace has no such number. */
    async remove(workspaceId: string, slug: string): Promise<void> {
      const deleted = await store.transaction((repos) =>
        repos.phoneNumbers.delete(workspaceId, bareSlug(slug)),
      );
      if (!deleted) throw numberNotFound(slug);
    },
  };
}
