import type { ActionConfigs, ActionKind, AgentSpec, Plan } from '../core/index.ts';

// What repositories return: plain objects with camelCase fields, times in ms.

export interface Workspace {
  id: string;
  parentId: string | null;
  name: string;
  plan: Plan;
  maxConcurrentCalls: number;
  /** Calls per second the dialer may start; null = unlimited. */
  callsPerSecond: number | null;
  webhookSecret: string;
  /** The secret before the last rotation, while webhooks are still signed with it too. */
  previousWebhookSecret: string | null;
  previousWebhookSecretExpiresAt: number | null;
  includeTimelineInWebhook: boolean;
  defaultAgentId: string | null;
  usageSeconds: number;
  createdAt: number;
  updatedAt: number;
}

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  prefix: string;
  createdAt: number;
}

/** The agent's fields other than type and name, as accepted by the API (src/core/agent-spec.ts). */
export type { AgentSpec };

export interface Agent {
  id: string;
  workspaceId: string;
  type: string;
  name: string;
  spec: AgentSpec;
  createdAt: number;
  updatedAt: number;
  /** The published version new conversations run; null: never published (the draft runs). */
  liveVersionId: string | null;
}

export interface PhoneNumber {
  id: string;
  workspaceId: string;
  number: string;
  slug: string;
  provider: string;
  sip: Record<string, unknown> | null;
  defaultAgentId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export type ChatStatus = 'ongoing' | 'completed' | 'cancelled';

export interface Chat {
  /** Insertion order; the list cursor. */
  seq: number;
  id: string;
  workspaceId: string;
  agentId: string;
  status: ChatStatus;
  channel: string;
  metadata: Record<string, unknown>;
  /** The conversation's state (a SessionSnapshot), opaque to the store. */
  state: unknown;
  /** Moves with every write; saveState checks it. */
  version: number;
  createdAt: number;
  updatedAt: number;
  /** sms/whatsapp chats: the workspace's number and the other side's (E.164); null for api chats. */
  ownNumber: string | null;
  remoteNumber: string | null;
  /** When the other side last wrote (ms); null before any inbound message. */
  lastInboundAt: number | null;
  /** Opened without an API key (a public widget): the only chats keyless messages reach. */
  openedWithoutKey: boolean;
  /** The agent version the chat opened with and keeps; null: the draft. */
  agentVersionId: string | null;
}

// The kinds and their configurations are written once in core (src/core/action-config.ts).
export { ACTION_KINDS, type ActionKind } from '../core/index.ts';

interface ActionFields {
  id: string;
  workspaceId: string;
  /** The kind's `name` (`identifier` for INFORMATION_EXTRACTOR), exactly as given. */
  name: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * An action of kind `K`: its configuration as accepted, parsed once on read into the kind's type
 * (src/store/actions.ts).
 */
export type ActionOf<K extends ActionKind> = ActionFields & { kind: K; config: ActionConfigs[K] };

/** An action of any kind; narrowing on `kind` types `config`. */
export type Action = { [K in ActionKind]: ActionOf<K> }[ActionKind];
