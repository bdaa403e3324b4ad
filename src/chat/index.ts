// Chats (DESIGN.md section 2): sessions over the API, SMS and WhatsApp, on the agent runtime.
export { createChats, type Chats, type ChatsOptions } from './service.ts';
export type { NewApiChat } from './api-chats.ts';
export type { NewOutboundChat } from './outbound.ts';
export { MAX_MESSAGE_CHARS, WHATSAPP_WINDOW_MS, type ChatLog, type InboundOutcome } from './channels.ts';
export { FALLBACK_LLM_FAILURE, type TurnOutcome } from './turns.ts';
export { snapshotOf } from './snapshot.ts';
