import type { Clock } from '../core/index.ts';
import type { AgentRuntime, MessagingHub, ReplyHub } from '../runtime/index.ts';
import type { Chat, Store, Workspace } from '../store/index.ts';
import { createApiChats, type ApiChats } from './api-chats.ts';
import { createChatChannels, type ChatChannels } from './channels.ts';
import { createOutboundChats, type NewOutboundChat } from './outbound.ts';
import { createChatTurns } from './turns.ts';

// The chat module's one entry: every way a chat message arrives (the API, with or without a key;
// SMS and WhatsApp, inbound and outbound) over one turn runner, so one chat's messages run in
// order whichever way they came. Built once by the composition root (src/app.ts).

export interface Chats extends ApiChats, ChatChannels {
  /** Starts an outbound SMS or WhatsApp conversation (its opening line is sent first). */
  startOutbound(workspace: Workspace, chat: NewOutboundChat): Promise<Chat>;
}

export interface ChatsOptions {
  store: Store;
  runtime: AgentRuntime;
  /** Sends and receives text messages (the runtime's messaging hub). */
  hub: MessagingHub;
  /** Waiting messaging actions take their replies first. */
  replies?: ReplyHub;
  clock?: Clock;
}

export function createChats(options: ChatsOptions): Chats {
  const { store, runtime, hub, replies, clock } = options;
  const turns = createChatTurns({ store, runtime, ...(clock ? { clock } : {}) });
  const channels = createChatChannels({
    store,
    turns,
    hub,
    ...(replies ? { replies } : {}),
    ...(clock ? { clock } : {}),
  });
  return {
    ...createApiChats(store, turns),
    ...channels,
    startOutbound: createOutboundChats({ store, turns, hub, ...(clock ? { clock } : {}) }),
  };
}
