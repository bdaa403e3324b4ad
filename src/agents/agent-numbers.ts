import { notFound, slugOf } from '../core/index.ts';
import type { Agent, Repositories, Store } from '../store/index.ts';
import { agentNotFound } from './errors.ts';

// An agent's outbound numbers: attached by slug (all or none), detached one at a time. The number
// operations list 404, so an unknown agent is a 404 here.

/** `slug` without the leading `+` a client may give it with. */
export const bareSlug = (slug: string): string => (slug.startsWith('+') ? slug.slice(1) : slug);

/** Attaches the agent's `phone_number` when the workspace owns it; returns what was attached. */
export async function attachOwnNumber(repos: Repositories, agent: Agent): Promise<string> {
  const number = agent.spec.phone_number;
  if (!number) return '';
  const [found] = await repos.phoneNumbers.findBySlugs(agent.workspaceId, [slugOf(number)]);
  if (!found) return '';
  await repos.phoneNumbers.attach(agent.workspaceId, agent.id, [found.id]);
  return found.number;
}

export function agentNumbers(store: Pick<Store, 'transaction'>) {
  return {
    /** Attaches the workspace's numbers `slugs` to the agent; 404 naming any the workspace lacks. */
    async attachNumbers(workspaceId: string, agentId: string, slugs: string[]): Promise<void> {
      await store.transaction(async (repos) => {
        const agent = await repos.agents.get(workspaceId, agentId);
        if (!agent) throw agentNotFound(agentId, 404);
        const found = await repos.phoneNumbers.findBySlugs(workspaceId, slugs);
        const missing = slugs.filter((s) => !found.some((n) => n.slug === s));
        if (missing.length > 0) {
          throw notFound(`phone number ${missing.map((s) => `+${s}`).join(', ')} not found in the workspace`);
        }
        await repos.phoneNumbers.attach(
          workspaceId,
          agent.id,
          found.map((n) => n.id),
        );
      });
    },

    /** Detaches one number (its slug as given, with or without `+`); 404 when it is not attached. */
    async detachNumber(workspaceId: string, agentId: string, slug: string): Promise<void> {
      await store.transaction(async (repos) => {
        const agent = await repos.agents.get(workspaceId, agentId);
        if (!agent) throw agentNotFound(agentId, 404);
        const [number] = await repos.phoneNumbers.findBySlugs(workspaceId, [bareSlug(slug)]);
        if (!number || !(await repos.phoneNumbers.detach(workspaceId, agent.id, number.id))) {
          throw notFound(`phone number ${slug} is not attached to agent ${agentId}`);
        }
      });
    },
  };
}
