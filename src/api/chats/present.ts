import { toIso } from '../../core/index.ts';
import { snapshotOf } from '../../chat/index.ts';
import { formatTranscript } from '../../conversation/index.ts';
import type { Chat } from '../../store/index.ts';
import { presentActions } from '../../runtime/index.ts';

// The chat record of WIRE.md section 6, from what the store holds.

export type TurnState = 'ongoing' | 'completed';

export interface HistoryEntry {
  agent_id: string;
  message: string;
  timestamp: string;
  turn_number: number;
  current_state: TurnState;
}

export interface AgentTurn {
  agent_message: string;
  current_state: TurnState;
  timestamp: string;
  turn_number: number;
}

/**
 * Every turn in order. Turn numbers count the user's messages: the greeting is turn 0, the user's
 * n-th message and the agent's answer to it are turn n. The last entry of a completed chat has
 * current_state `completed`.
 */
export function historyOf(chat: Chat): HistoryEntry[] {
  const { turns } = snapshotOf(chat);
  let turn = 0;
  const entries = turns.map((t): HistoryEntry => {
    if (t.speaker === 'user') turn += 1;
    return {
      agent_id: t.speaker === 'user' ? 'user' : chat.agentId,
      message: t.text,
      timestamp: toIso(t.at),
      turn_number: turn,
      current_state: 'ongoing',
    };
  });
  const last = entries.at(-1);
  if (last && chat.status === 'completed') last.current_state = 'completed';
  return entries;
}

export function presentChat(chat: Chat) {
  const history = historyOf(chat);
  const first = history[0];
  const initial: AgentTurn | null =
    first && first.turn_number === 0
      ? {
          agent_message: first.message,
          current_state: first.current_state,
          timestamp: first.timestamp,
          turn_number: 0,
        }
      : null;
  return {
    chat_id: chat.id,
    model_id: chat.agentId,
    chat_status: chat.status,
    metadata: chat.metadata,
    channel: chat.channel,
    conversation_history: history,
    initial_message: initial,
    start_timestamp: toIso(chat.createdAt),
    transcript: formatTranscript(snapshotOf(chat).turns, 'chat'),
    ...presentActions(chat.state),
    agent_version: chat.agentVersionId ?? 'draft',
    // The published record's flow-designer log: Parley agents are prompt agents, so there is none.
    fsm_log: null,
  };
}

/** Opaque list cursor: the seq of the last chat of the page, base64url. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`, 'utf8').toString('base64url');
}

/**
 * The seq a cursor stands for, or null when it is malformed. An empty cursor (a client passing
 * back the last page's empty `next_cursor`, or starting with one) means the first page.
 */
export function decodeCursor(cursor: string): number | null {
  if (cursor === '') return Number.MAX_SAFE_INTEGER;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const match = /^seq:([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const seq = match?.[1] === undefined ? NaN : Number(match[1]);
  return Number.isSafeInteger(seq) ? seq : null;
}
