import type { ConversationSession, SimulatedPerson } from '../conversation/index.ts';
import { LLMError } from '../providers/index.ts';

// One simulation's conversation: the simulated caller (playing the case's prompt) and the agent
// (the same conversation session as calls and chats) take turns in text until one ends it or
// `maxTurns` caller turns have been answered.

export interface SimulatedConversation {
  /** What each side said, in order. */
  turns: { speaker: 'agent' | 'user'; text: string }[];
  /** `bot: …\nhuman: …` */
  transcript: string;
  /** Caller turns the agent answered. */
  userTurns: number;
  /** Who ended it: `agent` (end_call or goodbye), `caller` (hung up), or null (max turns). */
  endedBy: 'agent' | 'caller' | null;
  hitMaxTurns: boolean;
}

/** Said for the agent when its model fails a turn; the simulation goes on. */
const AGENT_FALLBACK = "Sorry, I can't answer right now.";

export async function simulateConversation(options: {
  session: ConversationSession;
  caller: SimulatedPerson;
  maxTurns: number;
  signal?: AbortSignal;
}): Promise<SimulatedConversation> {
  const { session, caller, maxTurns, signal } = options;
  const opening = (await session.start(signal ? { signal } : {})).reply;
  let line = opening ? await caller.reply(opening, signal) : { text: await caller.opening(), hangUp: false };
  let endedBy: SimulatedConversation['endedBy'] = null;
  while (session.userTurns < maxTurns && !signal?.aborted) {
    if (line.text.trim() === '') {
      if (line.hangUp) {
        endedBy = 'caller';
        break;
      }
      line = await caller.reply('', signal);
      continue;
    }
    let reply: string | null;
    try {
      reply = (await session.respond(line.text, signal ? { signal } : {})).reply;
    } catch (err) {
      if (!(err instanceof LLMError)) throw err;
      await session.recordExchange(line.text, AGENT_FALLBACK);
      reply = AGENT_FALLBACK;
    }
    if (session.ended && session.ended.kind !== 'human_goodbye') {
      endedBy = 'agent';
      break;
    }
    if (line.hangUp || session.ended) {
      endedBy = 'caller';
      break;
    }
    line = await caller.reply(reply ?? '', signal);
  }
  return {
    turns: session.turns.map((t) => ({ speaker: t.speaker === 'user' ? 'user' : 'agent', text: t.text })),
    transcript: session.transcript(),
    userTurns: session.userTurns,
    endedBy,
    hitMaxTurns: endedBy === null && session.userTurns >= maxTurns,
  };
}
