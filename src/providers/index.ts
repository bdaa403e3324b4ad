export * from './llm/types.ts';
export { collectChat, type CollectedChat } from './llm/collect.ts';
export * from './messaging/types.ts';
