import { invalidInput, isUuid, normalizeE164, notFound } from '../core/index.ts';
import type { Agent, AgentVersion, PhoneNumber, Store, Workspace } from '../store/index.ts';

// Where a conversation that a request starts comes from: the agent, the number it speaks from
// (the call's caller ID, a campaign's number, a text's sender) and the agent version it runs. One
// rule for every door (POST /calls, the WebSocket media test call, batches, outbound SMS and
// WhatsApp); each door keeps its published field names and wording.

/** `undefined`: the live version (resolved where the conversation starts); null: the draft. */
export type VersionChoice = AgentVersion | null | undefined;

/** Which request starts the conversation. */
export type OriginDoor = 'call' | 'web-call' | 'batch' | 'text';

export interface OriginRequest {
  agentId: string;
  /** The number asked for, as the client wrote it. */
  from?: string | undefined;
  /** `draft`, `live`, a version UUID of the agent, or nothing (the live version). */
  version?: string | undefined;
}

export interface Origin<N extends PhoneNumber | null = PhoneNumber> {
  agent: Agent;
  /** The agent's number it comes from (a web call may come from an unattached one: null). */
  number: N;
  /** The number in E.164. */
  from: string;
  version: VersionChoice;
}

/** The number a web call is "from" when the request names none and the agent has none. */
export const WEB_CALL_NUMBER = '+15555550100';

interface DoorRules {
  agentField: string;
  fromField: string;
  versionField: string;
  /** The door's sentence for a number that is not a phone number. */
  badNumber: (agent: Agent, field: string) => string;
  /** The door's sentence for a number the agent does not have (null: any number will do). */
  notAttached: ((agent: Agent, from: string, field: string) => string) | null;
  /** The door's sentence when nothing was asked for and the agent has no number (null: WEB_CALL_NUMBER). */
  noNumber: ((agent: Agent, field: string) => string) | null;
}

const DOORS: Record<OriginDoor, DoorRules> = {
  call: {
    agentField: 'model_id',
    fromField: 'from_phone_number',
    versionField: 'agent_version',
    badNumber: (_agent, field) => `body.${field} is not a valid phone number`,
    notAttached: (agent, from, field) => `body.${field}: ${from} is not attached to agent ${agent.id}`,
    noNumber: (agent, field) =>
      `body.${field}: agent ${agent.id} has no attached number to call from (import one with POST /v2/custom-numbers and attach it)`,
  },
  'web-call': {
    agentField: 'body.modelId',
    fromField: 'fromPhoneNumber',
    versionField: 'agentVersion',
    badNumber: (_agent, field) => `body.${field} is not a valid phone number with a country code`,
    notAttached: null,
    noNumber: null,
  },
  batch: {
    agentField: 'model_id',
    fromField: 'from_phone_number',
    versionField: 'agent_version',
    // A campaign's number that is not a number is one the agent does not have.
    badNumber: (agent, field) => `body.${field}: not a number attached to agent ${agent.id}`,
    notAttached: (agent, _from, field) => `body.${field}: not a number attached to agent ${agent.id}`,
    noNumber: (agent, field) => `body.${field}: not a number attached to agent ${agent.id}`,
  },
  text: {
    agentField: 'agent_id',
    fromField: 'from_number',
    versionField: 'agent_version',
    badNumber: (_agent, field) => `body.${field} is not a valid phone number with a country code`,
    notAttached: (agent, _from, field) =>
      `body.${field}: not a number of this workspace attached to agent ${agent.id}`,
    noNumber: (agent, field) => `body.${field}: not a number of this workspace attached to agent ${agent.id}`,
  },
};

/** Which version a conversation runs, as a request chose it; a 400 naming `loc` when it cannot. */
async function chooseVersion(
  store: Pick<Store, 'agentVersions'>,
  agent: Agent,
  choice: string | undefined,
  loc: string[],
): Promise<VersionChoice> {
  if (choice === undefined || choice === 'live') return undefined;
  if (choice === 'draft') return null;
  const field = loc.join('.');
  if (!isUuid(choice)) throw invalidInput(`${field} must be "draft", "live" or a version UUID`, loc);
  // Another workspace's or agent's version answers as an unknown one: its ids are not visible.
  const version = await store.agentVersions.get(agent.workspaceId, agent.id, choice);
  if (!version) throw invalidInput(`${field}: agent ${agent.id} has no version ${choice}`, loc);
  return version;
}

type OriginStore = Pick<Store, 'agents' | 'agentVersions' | 'phoneNumbers'>;

/** The agent, its number and its version for a conversation `door` starts; a 400 naming the field. */
export async function chooseOrigin(
  store: OriginStore,
  workspace: Workspace,
  door: 'web-call',
  request: OriginRequest,
): Promise<Origin<PhoneNumber | null>>;
export async function chooseOrigin(
  store: OriginStore,
  workspace: Workspace,
  door: Exclude<OriginDoor, 'web-call'>,
  request: OriginRequest,
): Promise<Origin>;
export async function chooseOrigin(
  store: OriginStore,
  workspace: Workspace,
  door: OriginDoor,
  request: OriginRequest,
): Promise<Origin<PhoneNumber | null>> {
  const rules = DOORS[door];
  const agent = await store.agents.get(workspace.id, request.agentId);
  if (!agent) throw notFound(`${rules.agentField}: agent ${request.agentId} not found`, 400);
  const version = await chooseVersion(store, agent, request.version, ['body', rules.versionField]);
  const attached = (await store.phoneNumbers.attachedTo(workspace.id, [agent.id])).get(agent.id) ?? [];
  const loc = ['body', rules.fromField];
  const { notAttached, noNumber } = rules;

  if (request.from === undefined) {
    const first = attached[0];
    if (first) return { agent, number: first, from: first.number, version };
    if (noNumber) throw invalidInput(noNumber(agent, rules.fromField), loc);
    return { agent, number: null, from: WEB_CALL_NUMBER, version };
  }
  const from = normalizeE164(request.from);
  if (!from) throw invalidInput(rules.badNumber(agent, rules.fromField), loc);
  const number = attached.find((n) => n.number === from) ?? null;
  if (!number && notAttached) throw invalidInput(notAttached(agent, from, rules.fromField), loc);
  return { agent, number, from, version };
}
