import { ParleyError, notFound, systemClock, toIso, type Clock } from '../../core/index.ts';
import {
  ConversationSession,
  type AgentConversationConfig,
  type SessionSnapshot,
  type Variables,
} from '../../conversation/index.ts';
import { LLMError, type ModelRouter } from '../../providers/index.ts';
import type { Agent, Chat, Store, Workspace } from '../../store/index.ts';
import { snapshotOf } from './present.ts';

// How a chat takes one user message, shared by the chat routes (POST /chat/{id}/messages) and
// the text-message channels (inbound SMS/WhatsApp): one ordering chain per chat, the model's
// answer, an optimistic save at the version read, and a fallback line when the model fails.

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

export interface TurnOutcome {
  agent_message: string;
  current_state: 'ongoing' | 'completed';
  timestamp: string;
  turn_number: number;
}

export interface ChatTurns {
  /** Runs `fn` after every earlier call for the same chat has settled. */
  inOrder<T>(chatId: string, fn: () => Promise<T>): Promise<T>;
  /** A session of `agent` for a chat; `overrides` change the agent's conversation settings. */
  session(
    agent: Agent,
    workspace: Workspace,
    chatMetadata: Record<string, unknown>,
    snapshot?: SessionSnapshot,
    overrides?: Partial<AgentConversationConfig>,
  ): ConversationSession;
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

export function createChatTurns(options: { store: Store; models: ModelRouter; clock?: Clock }): ChatTurns {
  const { store, models } = options;
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

  function session(
    agent: Agent,
    workspace: Workspace,
    chatMetadata: Record<string, unknown>,
    snapshot?: SessionSnapshot,
    overrides: Partial<AgentConversationConfig> = {},
  ) {
    const config = { ...(agent.spec.agent ?? {}), ...overrides } as AgentConversationConfig & {
      llm?: string;
    };
    const { llm, model } = models.route(config.llm, workspace.plan);
    return new ConversationSession(
      { agent: config, llm, model, variables: variablesOf(chatMetadata), style: 'chat', clock },
      snapshot,
    );
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
    const s = session(agent, workspace, chat.metadata, snapshotOf(chat));
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
      state: s.snapshot(),
      ...(turnOptions.lastInboundAt !== undefined ? { lastInboundAt: turnOptions.lastInboundAt } : {}),
    });
    if (!saved) return null;
    return {
      agent_message: reply ?? '',
      current_state: statusOf(s),
      timestamp: toIso(clock.now()),
      turn_number: s.userTurns,
    };
  }

  return { inOrder, session, turn };
}
