// How long an agent takes to answer, as a web call's client hears it (the console's test call shows
// it live, and bench/browser-call.ts measures the SDK's web call with it the same way).

/** A frame's level in dBFS (-Infinity for digital silence). */
export function levelDb(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i += 1) sum += pcm[i]! * pcm[i]!;
  return 10 * Math.log10(sum / pcm.length / (32768 * 32768));
}

/**
 * The agent's response time as the client hears it: from the end of the caller's speech (the last
 * frame sent louder than `speechDb`) to the agent's first frame after a silence, for the agent's
 * talkspurts that answer a caller line the server heard (its transcript line came since the
 * agent last spoke): not the greeting, nor an agent line after noise. The server's own per-turn
 * latency is in the call's record once the call ends.
 */
export class ResponseTimer {
  private lastSpeechAt: number | null = null;
  private lastAgentAt = -Infinity;
  private callerSpoke = false;

  constructor(
    private readonly speechDb = -45,
    /** The agent's frames further apart than this start a new talkspurt (ms). */
    private readonly gapMs = 300,
  ) {}

  /** A caller frame was sent at `now` (ms). */
  sent(pcm: Int16Array, now: number): void {
    if (levelDb(pcm) > this.speechDb) this.lastSpeechAt = now;
  }

  /** The server heard a caller line (its transcript line came). */
  callerLine(): void {
    this.callerSpoke = true;
  }

  /** An agent frame came at `now` (ms): the response time when it starts an answer, else null. */
  heard(now: number): number | null {
    const starts = now - this.lastAgentAt > this.gapMs;
    this.lastAgentAt = now;
    if (!starts) return null;
    const answers = this.callerSpoke && this.lastSpeechAt !== null;
    const latency = answers ? now - this.lastSpeechAt! : null;
    this.callerSpoke = false;
    this.lastSpeechAt = null;
    return latency;
  }
}
