import type { Selectable } from 'kysely';
import type { Clock } from '../core/index.ts';
import type { Db } from './database.ts';
import { fromJson, toJson } from './json.ts';
import { precompiled } from './precompiled.ts';
import type { Chat, ChatStatus } from './records.ts';
import type { ChatTable } from './schema.ts';

function toChat(row: Selectable<ChatTable>): Chat {
  return {
    seq: Number(row.seq),
    id: row.id,
    workspaceId: row.workspace_id,
    agentId: row.agent_id,
    status: row.status as ChatStatus,
    channel: row.channel,
    metadata: fromJson<Record<string, unknown>>(row.metadata) ?? {},
    state: fromJson<unknown>(row.state),
    version: Number(row.version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    ownNumber: row.own_number ?? null,
    remoteNumber: row.remote_number ?? null,
    lastInboundAt:
      row.last_inbound_at === null || row.last_inbound_at === undefined ? null : Number(row.last_inbound_at),
    openedWithoutKey: Number(row.opened_without_key) === 1,
    agentVersionId: row.agent_version_id ?? null,
  };
}

export interface NewChat {
  /** The caller's id (a UUID). */
  id: string;
  agentId: string;
  channel: string;
  metadata: Record<string, unknown>;
  state: unknown;
  status?: ChatStatus;
  /** sms/whatsapp chats: the workspace's number and the other side's (E.164). */
  ownNumber?: string | null;
  remoteNumber?: string | null;
  /** Opened without an API key (a public widget). */
  openedWithoutKey?: boolean;
  /** The agent version the chat runs; null or absent: the draft. */
  agentVersionId?: string | null;
}

/** The two ends of a text-message conversation. */
export interface ChannelPair {
  channel: string;
  /** The workspace's number (the inbound message's `to`). */
  ownNumber: string;
  /** The other side's number (the inbound message's `from`). */
  remoteNumber: string;
}

export interface ChatListOptions {
  agentId?: string;
  limit: number;
  /** Only chats older than this seq (the cursor). */
  beforeSeq?: number;
}

export interface ChatList {
  items: Chat[];
  /** The seq of the last item (the next page's `beforeSeq`); null when the page is empty. */
  lastSeq: number | null;
  /** Older chats exist after this page. */
  hasMore: boolean;
}

export function chatsRepo(db: Db, clock: Clock) {
  const byId = precompiled(db, (q, workspaceId: string, id: string) =>
    q.selectFrom('chats').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id),
  );
  const byIdAnyWorkspace = precompiled(db, (q, id: string) =>
    q.selectFrom('chats').selectAll().where('id', '=', id),
  );

  return {
    /** Null when a chat with this id exists already, in any workspace. */
    async create(workspaceId: string, input: NewChat): Promise<Chat | null> {
      const now = clock.now();
      const row = await db
        .insertInto('chats')
        .values({
          id: input.id,
          workspace_id: workspaceId,
          agent_id: input.agentId,
          status: input.status ?? 'ongoing',
          channel: input.channel,
          metadata: toJson(input.metadata) ?? '{}',
          state: toJson(input.state) ?? '{}',
          version: 1,
          created_at: now,
          updated_at: now,
          own_number: input.ownNumber ?? null,
          remote_number: input.remoteNumber ?? null,
          last_inbound_at: null,
          opened_without_key: input.openedWithoutKey ? 1 : 0,
          agent_version_id: input.agentVersionId ?? null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toChat(row) : null;
    },

    async get(workspaceId: string, id: string): Promise<Chat | null> {
      const [row] = await byId(workspaceId, id);
      return row ? toChat(row) : null;
    },

    /** Unscoped: only for the public (keyless) widget path, where the chat decides the workspace. */
    async getAnyWorkspace(id: string): Promise<Chat | null> {
      const [row] = await byIdAnyWorkspace(id);
      return row ? toChat(row) : null;
    },

    /** Newest first. */
    async list(workspaceId: string, options: ChatListOptions): Promise<ChatList> {
      let query = db.selectFrom('chats').selectAll().where('workspace_id', '=', workspaceId);
      if (options.agentId !== undefined) query = query.where('agent_id', '=', options.agentId);
      if (options.beforeSeq !== undefined) query = query.where('seq', '<', options.beforeSeq);
      const rows = await query
        .orderBy('seq', 'desc')
        .limit(options.limit + 1)
        .execute();
      const items = rows.slice(0, options.limit).map(toChat);
      return { items, lastSeq: items.at(-1)?.seq ?? null, hasMore: rows.length > options.limit };
    },

    /**
     * Writes the state and status if the chat is still at `expectedVersion` (and bumps it); false
     * when another writer moved it first, or the chat is absent.
     */
    async saveState(
      workspaceId: string,
      id: string,
      expectedVersion: number,
      next: { status: ChatStatus; state: unknown; lastInboundAt?: number },
    ): Promise<boolean> {
      const result = await db
        .updateTable('chats')
        .set({
          status: next.status,
          state: toJson(next.state) ?? '{}',
          version: expectedVersion + 1,
          updated_at: clock.now(),
          ...(next.lastInboundAt !== undefined ? { last_inbound_at: next.lastInboundAt } : {}),
        })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .where('version', '=', expectedVersion)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * The newest ongoing chat of a text-message pair, for an inbound message: in any workspace
     * (a provider webhook, where the numbers decide) or in `workspaceId` only.
     */
    async findOngoing(pair: ChannelPair, workspaceId?: string): Promise<Chat | null> {
      let query = db
        .selectFrom('chats')
        .selectAll()
        .where('channel', '=', pair.channel)
        .where('own_number', '=', pair.ownNumber)
        .where('remote_number', '=', pair.remoteNumber)
        .where('status', '=', 'ongoing');
      if (workspaceId !== undefined) query = query.where('workspace_id', '=', workspaceId);
      const row = await query.orderBy('seq', 'desc').limit(1).executeTakeFirst();
      return row ? toChat(row) : null;
    },

    /** When the other side of a pair last wrote to the workspace, over all its chats; null: never. */
    async lastInboundAt(workspaceId: string, pair: ChannelPair): Promise<number | null> {
      const row = await db
        .selectFrom('chats')
        .select((eb) => eb.fn.max('last_inbound_at').as('at'))
        .where('workspace_id', '=', workspaceId)
        .where('channel', '=', pair.channel)
        .where('own_number', '=', pair.ownNumber)
        .where('remote_number', '=', pair.remoteNumber)
        .executeTakeFirst();
      const at = row?.at;
      return at === null || at === undefined ? null : Number(at);
    },

    /** Marks the chat cancelled (whatever its status); null when absent. */
    async cancel(workspaceId: string, id: string): Promise<Chat | null> {
      const row = await db
        .updateTable('chats')
        .set((eb) => ({
          status: 'cancelled',
          version: eb('version', '+', 1),
          updated_at: clock.now(),
        }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toChat(row) : null;
    },
  };
}

export type ChatsRepo = ReturnType<typeof chatsRepo>;
