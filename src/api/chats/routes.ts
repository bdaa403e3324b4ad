import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput, notFound, unauthorized, type Clock } from '../../core/index.ts';
import { LLMError } from '../../providers/index.ts';
import type { Chat, Store, Workspace } from '../../store/index.ts';
import { MISSING_AUTH, keyWorkspace } from '../auth.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
import { allowsPublicChat, keylessMayWrite } from './keyless.ts';
import { decodeCursor, encodeCursor, presentChat } from './present.ts';
import {
  AgentTurn,
  CancelledChat,
  ChatIdParams,
  ChatPage,
  ChatRecord,
  CreateChatBody,
  ListChatsQuery,
  SendMessageBody,
} from './schemas.ts';
import { conflict400, stateOf, statusOf, type ChatTurns } from './turns.ts';

const TAG = ['Chats'];

export { FALLBACK_LLM_FAILURE } from './turns.ts';

export interface ChatRoutesOptions {
  store: Store;
  clock?: Clock;
  /** Shared with the text-message channels so one chat's messages run in order. */
  turns: ChatTurns;
}

// The spec lists no 404 for chats: unknown ids are 400 not_found (WIRE.md section 1), and a
// conflict (duplicate id, closed chat, concurrent writer) is a 400 with category conflict.
const chatNotFound = (id: string) => notFound(`chat ${id} not found`, 400);
const agentNotFound = (id: string) => notFound(`model_id: agent ${id} not found`, 400);

export const chatRoutes: FastifyPluginAsyncTypebox<ChatRoutesOptions> = async (app, options) => {
  const { store, turns } = options;
  const { inOrder, open, turn } = turns;

  async function workspaceOf(id: string): Promise<Workspace> {
    const workspace = await store.workspaces.get(id);
    if (!workspace) throw notFound('workspace not found', 400);
    return workspace;
  }

  /**
   * The chat addressed by the request: in the key's workspace or, keyless, a chat opened keylessly
   * whose agent still allows it (any other is indistinguishable from a missing one).
   */
  async function findChat(workspace: Workspace | null, id: string): Promise<Chat> {
    if (workspace) {
      const chat = await store.chats.get(workspace.id, id);
      if (!chat) throw chatNotFound(id);
      return chat;
    }
    const chat = await store.chats.getAnyWorkspace(id);
    const agent = chat?.openedWithoutKey ? await store.agents.get(chat.workspaceId, chat.agentId) : null;
    if (!chat || !keylessMayWrite(chat, agent)) throw chatNotFound(id);
    return chat;
  }

  app.post(
    '/chat/:chat_id',
    {
      config: { publicWithoutKey: true },
      schema: {
        tags: TAG,
        summary: 'Create a chat (works without a key for public widgets)',
        params: ChatIdParams,
        body: CreateChatBody,
        response: { 200: okEnvelope(ChatRecord), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const id = request.params.chat_id;
      const keyed = keyWorkspace(request);
      const modelId = request.body.model_id;
      const agent = keyed
        ? await store.agents.get(keyed.id, modelId)
        : await store.agents.getAnyWorkspace(modelId);
      if (!agent) throw agentNotFound(modelId);
      if (!keyed && !allowsPublicChat(agent))
        throw unauthorized(
          `${MISSING_AUTH}: agent ${modelId} takes chats only with an API key (agent.allow_public_chat is off)`,
        );
      const workspace = keyed ?? (await workspaceOf(agent.workspaceId));
      if (await store.chats.getAnyWorkspace(id)) throw conflict400(`chat_id: chat ${id} already exists`);
      const metadata = (request.body.metadata ?? {}) as Record<string, unknown>;
      // The agent's actions: pre-call custom actions run now, before the greeting.
      const { conversation, versionId } = await open({ chatId: id, agent, workspace, metadata });
      const s = conversation.session;
      try {
        await s.start();
      } catch (err) {
        // A dynamic greeting the model could not make: the chat opens without one.
        if (!(err instanceof LLMError)) throw err;
        request.log.warn({ err, chat_id: id }, 'greeting failed');
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
      return ok(presentChat(chat));
    },
  );

  app.get(
    '/chat/:chat_id',
    {
      schema: {
        tags: TAG,
        summary: 'Get a chat',
        params: ChatIdParams,
        response: { 200: okEnvelope(ChatRecord), ...errorResponses(400, 401) },
      },
    },
    async (request) => ok(presentChat(await findChat(request.workspace, request.params.chat_id))),
  );

  app.delete(
    '/chat/:chat_id',
    {
      schema: {
        tags: TAG,
        summary: 'Cancel a chat',
        params: ChatIdParams,
        response: { 200: okEnvelope(CancelledChat), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const id = request.params.chat_id;
      const cancelled = await store.chats.cancel(request.workspace.id, id);
      if (!cancelled) throw chatNotFound(id);
      return ok({ chat_id: id, chat_status: 'cancelled' as const });
    },
  );

  app.get(
    '/chat',
    {
      schema: {
        tags: TAG,
        summary: 'List chats, newest first (cursor pagination)',
        querystring: ListChatsQuery,
        response: { 200: okEnvelope(ChatPage), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { agent_id: agentId, limit, cursor } = request.query;
      let beforeSeq: number | undefined;
      if (cursor !== undefined) {
        const seq = decodeCursor(cursor);
        if (seq === null) throw invalidInput('query.cursor: malformed cursor', ['query', 'cursor']);
        beforeSeq = seq;
      }
      const page = await store.chats.list(request.workspace.id, {
        limit,
        ...(agentId !== undefined ? { agentId } : {}),
        ...(beforeSeq !== undefined ? { beforeSeq } : {}),
      });
      return ok({
        chats: page.items.map(presentChat),
        has_more: page.hasMore,
        next_cursor: page.hasMore && page.lastSeq !== null ? encodeCursor(page.lastSeq) : '',
      });
    },
  );

  app.post(
    '/chat/:chat_id/messages',
    {
      config: { publicWithoutKey: true },
      schema: {
        tags: TAG,
        summary: "Send a message and get the agent's answer (works without a key for public widgets)",
        params: ChatIdParams,
        body: SendMessageBody,
        response: { 200: okEnvelope(AgentTurn), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const id = request.params.chat_id;
      const keyed = keyWorkspace(request);
      const message = request.body.message;
      return inOrder(id, async () => {
        // A concurrent writer (another process) moved the chat: reload and answer once more.
        for (let attempt = 0; attempt < 2; attempt++) {
          const chat = await findChat(keyed, id);
          const workspace = keyed ?? (await workspaceOf(chat.workspaceId));
          const result = await turn(chat, workspace, message);
          if (result) return ok(result);
        }
        throw conflict400(`chat ${id} was changed by another request; send the message again`);
      });
    },
  );
};
