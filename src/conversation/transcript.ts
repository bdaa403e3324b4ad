// The record of what was said. Voice transcripts label turns `bot:` and `human:` (spec, post-call
// payload); chat transcripts `Agent:` and `User:` (WIRE.md section 6).

export type Speaker = 'agent' | 'user';
export type TranscriptStyle = 'voice' | 'chat';

export interface TranscriptTurn {
  speaker: Speaker;
  /** As stored: masked when the agent has `redact_pii`. */
  text: string;
  /** When the turn was complete, ms. */
  at: number;
  /** The agent was cut off; `text` is what was actually delivered. */
  interrupted?: boolean;
}

const LABELS: Record<TranscriptStyle, Record<Speaker, string>> = {
  voice: { agent: 'bot', user: 'human' },
  chat: { agent: 'Agent', user: 'User' },
};

export function formatTranscript(turns: readonly TranscriptTurn[], style: TranscriptStyle): string {
  const labels = LABELS[style];
  return turns.map((t) => `${labels[t.speaker]}: ${t.text.replace(/\s*\n\s*/g, ' ')}`).join('\n');
}
