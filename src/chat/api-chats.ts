import { MISSING_AUTH, notFound, unauthorized } from '../core/index.ts';
import { LLMError } from '../providers/index.ts';
import type { Chat, Store, Workspace } from '../store/index.ts';
import { allowsPublicChat, keylessMayWrite } from './keyless.ts';
import type { ChatLog } from './channels.ts';
import { conflict400, stateOf, statusOf, type ChatTurns, type TurnOutcome } from './turns.ts';

// Chats over the API (POST /chat/{id}, POST /chat/{id}/messages), with or without a key. The
// spec lists no 404 for chats: unknown ids are 400 not_found (WIRE.md section 1), and a conflict
// (duplicate id, closed chat, concurrent writer) is a 400 with category conflict.

export interface NewApiChat {
  id: string;
  /** The agent that answers (the request's `model_id`). */
  agentId: string;
  /** The key's workspace; null: a keyless (public widget) request. */
  keyed: Workspace | null;
  metadata: Record<string, unknown>;
}

export interface ApiChats {
  /** Opens a chat: the agent's pre-call actions run, then its greeting (if the model can make it). */
  create(chat: NewApiChat, log: ChatLog): Promise<Chat>;
  /**
   * The chat a request addresses: in the key's workspace or, keyless, a chat opened keylessly
   * whose agent still allows it (any other is indistinguishable from a missing one).
   */
  find(keyed: Workspace | null, id: string): Promise<Chat>;
  /** One user message, in order with the chat's other messages; the agent's answer. */
  message(keyed: Workspace | null, id: string, text: string): Promise<TurnOutcome>;
}

const chatNotFound = (id: string) => notFound(`chat ${id} not found`, 400);

export function createApiChats(store: Store, turns: ChatTurns): ApiChats {
  async function workspaceOf(id: string): Promise<Workspace> {
    const workspace = await store.workspaces.get(id);
    if (!workspace) throw notFound('workspace not found', 400);
    return workspace;
  }

  async function find(keyed: Workspace | null, id: string): Promise<Chat> {
    if (keyed) {
      const chat = await store.chats.get(keyed.id, id);
      if (!chat) throw chatNotFound(id);
      return chat;
    }
    const chat = await store.chats.getAnyWorkspace(id);
    const agent = chat?.openedWithoutKey ? await store.agents.get(chat.workspaceId, chat.agentId) : null;
    if (!chat || !keylessMayWrite(chat, agent)) throw chatNotFound(id);
    return chat;
  }

  async function create({ id, agentId, keyed, metadata }: NewApiChat, log: ChatLog): Promise<Chat> {
    const agent = keyed
      ? await store.agents.get(keyed.id, agentId)
      : await store.agents.getAnyWorkspace(agentId);
    if (!agent) throw notFound(`model_id: agent ${agentId} not found`, 400);
    if (!keyed && !allowsPublicChat(agent))
      throw unauthorized(
        `${MISSING_AUTH}: agent ${agentId} takes chats only with an API key (agent.allow_public_chat is off)`,
      );
    const workspace = keyed ?? (await workspaceOf(agent.workspaceId));
    if (await store.chats.getAnyWorkspace(id)) throw conflict400(`chat_id: chat ${id} already exists`);
    // The agent's actions: pre-call custom actions run now, before the greeting.
    const { conversation, versionId } = await turns.open({ chatId: id, agent, workspace, metadata });
    const s = conversation.session;
    try {
      await s.start();
    } catch (err) {
      // A dynamic greeting the model could not make: the chat opens without one.
      if (!(err instanceof LLMError)) throw err;
      log.warn({ err, chat_id: id }, 'greeting failed');
    }
    const chat = await store.chats.create(workspace.id, {
      id,
      agentId: agent.id,
      channel: 'api',
      openedWithoutKey: !keyed,
      agentVersionId: versionId,
      metadata,
      state: stateOf(conversation),
      status: statusOf(s),
    });
    if (!chat) throw conflict400(`chat_id: chat ${id} already exists`);
    return chat;
  }

  function message(keyed: Workspace | null, id: string, text: string): Promise<TurnOutcome> {
    return turns.inOrder(id, async () => {
      // A concurrent writer (another process) moved the chat: reload and answer once more.
      for (let attempt = 0; attempt < 2; attempt++) {
        const chat = await find(keyed, id);
        const workspace = keyed ?? (await workspaceOf(chat.workspaceId));
        const result = await turns.turn(chat, workspace, text);
        if (result) return result;
      }
      throw conflict400(`chat ${id} was changed by another request; send the message again`);
    });
  }

  return { create, find, message };
}
