import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invalidInput, notFound } from '../../core/index.ts';
import type { Chats } from '../../chat/index.ts';
import type { Store } from '../../store/index.ts';
import { keyWorkspace } from '../auth.ts';
import { ok } from '../envelope.ts';
import { errorResponses, okEnvelope } from '../schemas/common.ts';
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

const TAG = ['Chats'];

export interface ChatRoutesOptions {
  store: Store;
  /** The chat module: what happens when a chat is opened or a message arrives. */
  chats: Chats;
}

const chatNotFound = (id: string) => notFound(`chat ${id} not found`, 400);

export const chatRoutes: FastifyPluginAsyncTypebox<ChatRoutesOptions> = async (app, options) => {
  const { store, chats } = options;

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
      const chat = await chats.create(
        {
          id: request.params.chat_id,
          agentId: request.body.model_id,
          keyed: keyWorkspace(request),
          metadata: (request.body.metadata ?? {}) as Record<string, unknown>,
        },
        request.log,
      );
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
    async (request) => ok(presentChat(await chats.find(request.workspace, request.params.chat_id))),
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
    async (request) =>
      ok(await chats.message(keyWorkspace(request), request.params.chat_id, request.body.message)),
  );
};
