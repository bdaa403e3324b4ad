import type { Agent, Chat } from '../store/index.ts';

// Keyless (public widget) chat access, in one place: without an API key, a client may open a chat
// only with an agent that allows it, and write only into chats that were opened that way. Channel
// chats (SMS, WhatsApp) and chats opened with a key are never reachable without one.

/** Agent types whose chats are public unless `agent.allow_public_chat` is false. */
const PUBLIC_BY_DEFAULT = new Set(['widget', 'chat']);

/** `agent.allow_public_chat` when set, else on for widget and chat agents only. */
export function allowsPublicChat(agent: Agent): boolean {
  return agent.spec.agent?.allow_public_chat ?? PUBLIC_BY_DEFAULT.has(agent.type);
}

/** Whether a keyless request may write into `chat` of `agent` (null: the agent is gone). */
export function keylessMayWrite(chat: Chat, agent: Agent | null): boolean {
  return chat.channel === 'api' && chat.openedWithoutKey && agent !== null && allowsPublicChat(agent);
}
