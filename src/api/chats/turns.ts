import { createSafeFetch, type HttpPort } from '../../actions/index.ts';
import { ParleyError, notFound, systemClock, toIso, type Clock } from '../../core/index.ts';
import {
  ConversationSession,
  type AgentConversationConfig,
  type SessionSnapshot,
  type Variables,
} from '../../conversation/index.ts';
import { retrieve } from '../../knowledge/index.ts';
import { LLMError, type ModelRouter } from '../../providers/index.ts';
import type { Agent, Chat, Store, Workspace } from '../../store/index.ts';
import {
  actionStateOf,
  chatActions,
  runPreCallActions,
  type ChatActions,
  type StoredChatState,
} from './actions.ts';
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
  /**
   * A session of `agent` for a chat; `overrides` change the agent's conversation settings;
   * `actions` (from `actionsFor`/`open`) give it the agent's action tools and pre-call variables.
   */
  session(
    agent: Agent,
    workspace: Workspace,
    chatMetadata: Record<string, unknown>,
    snapshot?: SessionSnapshot,
    overrides?: Partial<AgentConversationConfig>,
    actions?: ChatActions,
  ): ConversationSession;
  /** The agent's attached actions for a chat, continuing the stored records when given. */
  actionsFor(
    chatId: string,
    agent: Agent,
    chatMetadata: Record<string, unknown>,
    stored?: Chat,
  ): Promise<ChatActions>;
  /**
   * A new chat's session (not started): the agent's actions loaded and its pre-call custom
   * actions run, their results feeding the prompt and greeting.
   */
  open(
    chatId: string,
    agent: Agent,
    workspace: Workspace,
    chatMetadata: Record<string, unknown>,
  ): Promise<{ session: ConversationSession; actions: ChatActions }>;
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

/** The state a chat stores: the session's snapshot and the action records. */
export function stateOf(session: ConversationSession, actions?: ChatActions): StoredChatState {
  return { ...session.snapshot(), ...(actions ? actions.state() : {}) };
}

export interface ChatTurnsOptions {
  store: Store;
  models: ModelRouter;
  clock?: Clock;
  /** Outbound HTTP of custom actions; default: the safe fetch (private networks refused). */
  http?: HttpPort;
}

export function createChatTurns(options: ChatTurnsOptions): ChatTurns {
  const { store, models } = options;
  const clock = options.clock ?? systemClock;
  const http = options.http ?? createSafeFetch();
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
    actions?: ChatActions,
  ) {
    const config = { ...(agent.spec.agent ?? {}), ...overrides } as AgentConversationConfig & {
      llm?: string;
    };
    const { llm, model } = models.route(config.llm, workspace.plan);
    return new ConversationSession(
      {
        agent: config,
        llm,
        model,
        variables: { ...variablesOf(chatMetadata), ...actions?.actionVariables },
        style: 'chat',
        clock,
        ...(actions ? { tools: actions.tools } : {}),
        knowledge: (query) => passagesFor(agent, query),
      },
      snapshot,
    );
  }

  /** The top passages of the agent's knowledge base for what the user just said. */
  async function passagesFor(agent: Agent, query: string): Promise<string[]> {
    const baseId = await store.knowledge.baseOfAgent(agent.workspaceId, agent.id);
    if (!baseId) return [];
    return (await retrieve(store, agent.workspaceId, [baseId], query)).map((p) => p.text);
  }

  async function actionsFor(
    chatId: string,
    agent: Agent,
    chatMetadata: Record<string, unknown>,
    stored?: Chat,
  ): Promise<ChatActions> {
    const attached = (
      (await store.actions.attachedTo(agent.workspaceId, [agent.id])).get(agent.id) ?? []
    ).filter((action) => action.workspaceId === agent.workspaceId);
    return chatActions({
      chatId,
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      actions: attached,
      http,
      variables: variablesOf(chatMetadata),
      clock,
      ...(stored ? { stored: actionStateOf(stored) } : {}),
    });
  }

  async function open(
    chatId: string,
    agent: Agent,
    workspace: Workspace,
    chatMetadata: Record<string, unknown>,
  ) {
    const actions = await actionsFor(chatId, agent, chatMetadata);
    actions.addVariables(
      await runPreCallActions(actions.actions, {
        http,
        recorder: actions.recorder,
        variables: variablesOf(chatMetadata),
      }),
    );
    return { session: session(agent, workspace, chatMetadata, undefined, {}, actions), actions };
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
    const actions = await actionsFor(chat.id, agent, chat.metadata, chat);
    const s = session(agent, workspace, chat.metadata, snapshotOf(chat), {}, actions);
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
      state: stateOf(s, actions),
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

  return { inOrder, session, actionsFor, open, turn };
}
