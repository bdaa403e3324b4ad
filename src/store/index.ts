export { createStore, type Store, type Repositories } from './store.ts';
export type { DatabaseOptions, DialectName } from './database.ts';
export type { Agent, AgentSpec, ApiKey, Chat, ChatStatus, Page, PhoneNumber, Workspace } from './records.ts';
export type { ChatList, ChatListOptions, NewChat } from './chats.ts';
export type { NewWorkspace, WorkspacePatch } from './workspaces.ts';
export { newWebhookSecret } from './workspaces.ts';
export { generateApiKey, hashApiKey, type CreatedApiKey } from './api-keys.ts';
export { bootstrapWorkspace, DEFAULT_MAX_CONCURRENT_CALLS, type BootstrapResult } from './bootstrap.ts';
