import type { SessionSnapshot } from '../conversation/index.ts';
import type { Chat } from '../store/index.ts';

/** A chat's stored session, tolerant of a row written before any turn. */
export function snapshotOf(chat: Chat): SessionSnapshot {
  const state = (chat.state ?? {}) as Partial<SessionSnapshot>;
  return {
    history: state.history ?? [],
    turns: state.turns ?? [],
    modelCalls: state.modelCalls ?? [],
    toolCalls: state.toolCalls ?? [],
    userTurns: state.userTurns ?? 0,
    started: state.started ?? false,
    ended: state.ended ?? null,
  };
}
