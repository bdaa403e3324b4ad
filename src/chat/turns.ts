import { ParleyError, notFound, systemClock, toIso, type Clock } from '../core/index.ts';
import {
  type AgentConversationConfig,
  type ConversationSession,
  type SessionSnapshot,
  type Variables,
} from '../conversation/index.ts';
import { LLMError } from '../providers/index.ts';
import {
  prepareRun,
  type AgentRun,
  type AgentRuntime,
  type Conversation,
  type ConversationParty,
} from '../runtime/index.ts';
import type { Agent, Chat, Store, Workspace } from '../store/index.ts';
import { snapshotOf } from './snapshot.ts';

// How a chat takes one user message, shared by the API's chats (POST /chat/{id}/messages) and
// the text-message channels (inbound SMS/WhatsApp): one ordering chain per chat, the agent's
// runtime (model, actions, knowledge), an optimistic save at the version read, a fallback line
// when the model fails, and the after-the-end work (final extraction, SEND_SMS) once a chat ends.

/** Answered when the model fails for a turn; the message is kept and the chat goes on. */
export const FALLBACK_LLM_FAILURE = "Sorry, I can't answer right now. Please try again in a moment.";

export const conflict400 = (description: string) =>
  new ParleyError(description, { code: 'conflict', status: 400, category: 'conflict' });

/** The chat's metadata as placeholder values: only strings, numbers and booleans. */
export function variablesOf(metadata: Record<string, unknown>): Variables {
  const variables: Variables = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      variables[key] = value;
  }
  return variables;
}

export const statusOf = (session: ConversationSession): 'ongoing' | 'completed' =>
  session.ended ? 'completed' : 'ongoing';

/** The state a chat stores: the session's snapshot and the action records. */
export function stateOf(conversation: Conversation): Record<string, unknown> {
  return { ...conversation.session.snapshot(), ...conversation.actions.state() };
}

export interface TurnOutcome {
  agent_message: string;
  current_state: 'ongoing' | 'completed';
  timestamp: string;
  turn_number: number;
}

/** Who an SMS/WhatsApp chat is with (API chats: nobody known). */
export function partyOf(chat: Pick<Chat, 'ownNumber' | 'remoteNumber'>): ConversationParty {
  return {
    ...(chat.ownNumber ? { ourNumber: chat.ownNumber } : {}),
    ...(chat.remoteNumber ? { leadNumber: chat.remoteNumber } : {}),
  };
}

export interface OpenChat {
  chatId: string;
  agent: Agent;
  workspace: Workspace;
  metadata: Record<string, unknown>;
  party?: ConversationParty;
  overrides?: Partial<AgentConversationConfig>;
}

export interface ChatTurns {
  /** Runs `fn` after every earlier call for the same chat has settled. */
  inOrder<T>(chatId: string, fn: () => Promise<T>): Promise<T>;
  /**
   * A new chat's conversation (not started) on the agent's live version, which the chat keeps
   * (store `versionId` with it): its actions loaded and its pre-call custom actions run, their
   * results feeding the prompt and greeting.
   */
  open(chat: OpenChat): Promise<{ conversation: Conversation; versionId: string | null }>;
  /**
   * One user message: answer, store the new state (at the version read), report the turn; null
   * when another writer moved the chat first (reload and try again).
   */
  turn(
    chat: Chat,
    workspace: Workspace,
    message: string,
    options?: { lastInboundAt?: number },
  ): Promise<TurnOutcome | null>;
}

export interface ChatTurnsOptions {
  store: Store;
  runtime: AgentRuntime;
  clock?: Clock;
}

export function createChatTurns(options: ChatTurnsOptions): ChatTurns {
  const { store, runtime } = options;
  const clock = options.clock ?? systemClock;
  const chains = new Map<string, Promise<unknown>>();

  function inOrder<T>(chatId: string, fn: () => Promise<T>): Promise<T> {
    const run = (chains.get(chatId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    chains.set(chatId, tail);
    void tail.then(() => {
      if (chains.get(chatId) === tail) chains.delete(chatId);
    });
    return run;
  }

  async function open(chat: OpenChat) {
    const run = await liveRunOf(chat.agent);
    const conversation = await runtime.open({
      conversationId: chat.chatId,
      agent: run.agent ?? chat.agent,
      workspace: chat.workspace,
      variables: variablesOf(chat.metadata),
      style: 'chat',
      ...(chat.party ? { party: chat.party } : {}),
      ...(chat.overrides ? { overrides: chat.overrides } : {}),
      attachedActions: run.attachedActions,
      knowledgeBase: run.knowledgeBase,
    });
    return { conversation, versionId: run.versionId };
  }

  /** The agent's live version (the draft while never published, or if it cannot be read). */
  async function liveRunOf(agent: Agent): Promise<AgentRun> {
    const run = await prepareRun(store, agent, agent.liveVersionId);
    return run.agent ? run : prepareRun(store, agent, null);
  }

  async function turn(
    chat: Chat,
    workspace: Workspace,
    message: string,
    turnOptions: { lastInboundAt?: number } = {},
  ): Promise<TurnOutcome | null> {
    if (chat.status !== 'ongoing')
      throw conflict400(`chat ${chat.id} is ${chat.status}; it takes no messages`);
    const agent = await store.agents.get(chat.workspaceId, chat.agentId);
    if (!agent) throw notFound(`the agent ${chat.agentId} of chat ${chat.id} no longer exists`, 400);
    // The version the chat opened with, whatever was published since.
    const run = await prepareRun(store, agent, chat.agentVersionId);
    if (!run.agent)
      throw notFound(`the agent version ${chat.agentVersionId} of chat ${chat.id} no longer exists`, 400);
    const conversation = await runtime.open({
      conversationId: chat.id,
      agent: run.agent,
      attachedActions: run.attachedActions,
      knowledgeBase: run.knowledgeBase,
      workspace,
      variables: variablesOf(chat.metadata),
      style: 'chat',
      party: partyOf(chat),
      stored: { snapshot: snapshotOf(chat) as SessionSnapshot, state: chat.state },
    });
    const s = conversation.session;
    let reply: string | null;
    try {
      reply = (await s.respond(message)).reply;
    } catch (err) {
      if (!(err instanceof LLMError)) throw err;
      await s.recordExchange(message, FALLBACK_LLM_FAILURE);
      reply = FALLBACK_LLM_FAILURE;
    }
    const saved = await store.chats.saveState(chat.workspaceId, chat.id, chat.version, {
      status: statusOf(s),
      state: stateOf(conversation),
      ...(turnOptions.lastInboundAt !== undefined ? { lastInboundAt: turnOptions.lastInboundAt } : {}),
    });
    if (!saved) return null;
    if (s.ended) {
      // Once, by the writer that ended the chat: the final extraction and SEND_SMS, then their
      // records (a later writer cannot exist: a completed chat takes no messages).
      await runtime.finish(conversation);
      await store.chats.saveState(chat.workspaceId, chat.id, chat.version + 1, {
        status: statusOf(s),
        state: stateOf(conversation),
      });
    }
    return {
      agent_message: reply ?? '',
      current_state: statusOf(s),
      timestamp: toIso(clock.now()),
      turn_number: s.userTurns,
    };
  }

  return { inOrder, open, turn };
}
