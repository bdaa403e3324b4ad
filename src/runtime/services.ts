import type { Clock, HttpPort } from '../core/index.ts';
import type { ModelRouter } from '../providers/index.ts';
import type { Repositories } from '../store/index.ts';
import { createMessagingHub, type MessagingDeps, type MessagingHub } from './messaging.ts';
import { createReplyHub, type ReplyHub } from './replies.ts';
import { createAgentRuntime, type AgentRuntime } from './runtime.ts';

/** What every kind of conversation shares in one process: one runtime, one messaging hub. */
export interface ConversationServices {
  runtime: AgentRuntime;
  messaging: MessagingHub;
  replies: ReplyHub;
  /** The outbound HTTP its actions use (the safe fetch with the deployment's network rules). */
  http: HttpPort;
}

export function createConversationServices(options: {
  repos: Repositories;
  models: ModelRouter;
  clock: Clock;
  http: HttpPort;
  messaging: MessagingDeps;
}): ConversationServices {
  const messaging = createMessagingHub({ repos: options.repos, messaging: options.messaging });
  const replies = createReplyHub();
  const runtime = createAgentRuntime({
    repos: options.repos,
    models: options.models,
    clock: options.clock,
    http: options.http,
    messagingFor: (workspaceId) => messaging.portFor(workspaceId),
    replies,
  });
  return { runtime, messaging, replies, http: options.http };
}
