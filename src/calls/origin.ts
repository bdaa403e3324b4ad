import { invalidInput, isUuid } from '../../core/index.ts';
import type { Agent, AgentVersion, Store } from '../../store/index.ts';

// Which agent version a conversation runs, as requests choose it: `draft`, `live`, a version
// UUID of that agent, or nothing (the live version). An unknown id, or another agent's, is a 400
// naming the field (the same answer for another workspace's: its ids are not visible).

/** `undefined`: the live version (resolved where the conversation starts); null: the draft. */
export type VersionChoice = AgentVersion | null | undefined;

export async function chooseVersion(
  store: Pick<Store, 'agentVersions'>,
  agent: Agent,
  choice: string | undefined,
  loc: string[],
): Promise<VersionChoice> {
  if (choice === undefined || choice === 'live') return undefined;
  if (choice === 'draft') return null;
  const field = loc.join('.');
  if (!isUuid(choice)) throw invalidInput(`${field} must be "draft", "live" or a version UUID`, loc);
  const version = await store.agentVersions.get(agent.workspaceId, agent.id, choice);
  if (!version) throw invalidInput(`${field}: agent ${agent.id} has no version ${choice}`, loc);
  return version;
}
