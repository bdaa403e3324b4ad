import type { Store } from '../store/index.ts';
import { agentActions } from './agent-actions.ts';
import { agentKnowledge } from './agent-knowledge.ts';
import { agentNumbers } from './agent-numbers.ts';
import { agentRecords } from './agents.ts';
import { actionService } from './actions.ts';
import { numberService } from './numbers.ts';

// Agents and what is attached to them: the rules that read the stored state, each change in one
// transaction (docs/architecture.md, "Where the rules of a change live"). Versions are the
// store's (`agentVersions.publish`, `restore`, `setLive` each run in one transaction).

/** An agent and its attachments: numbers, actions, knowledge base. */
export type AgentService = ReturnType<typeof agentRecords> &
  ReturnType<typeof agentNumbers> &
  ReturnType<typeof agentActions> &
  ReturnType<typeof agentKnowledge>;
export type NumberService = ReturnType<typeof numberService>;
export type ActionService = ReturnType<typeof actionService>;

export interface AgentServices {
  agents: AgentService;
  numbers: NumberService;
  actions: ActionService;
}

export function createAgentServices(store: Pick<Store, 'transaction'>): AgentServices {
  return {
    agents: {
      ...agentRecords(store),
      ...agentNumbers(store),
      ...agentActions(store),
      ...agentKnowledge(store),
    },
    numbers: numberService(store),
    actions: actionService(store),
  };
}

export { agentNotFound } from './errors.ts';
export type { AgentChange, AgentUpdate, NewAgentInput } from './agents.ts';
export type { AttachActionsRequest, AttachItem } from './action-attachments.ts';
export type { NumberPatch, NumberRecord, NumberUpdate } from './numbers.ts';
