import type { AudioFrame } from '../../media/index.ts';
import type { SentBeat } from '../pacing/index.ts';

// The simulated far end of `sim` calls: a person (a `Callee`) that the composition root builds
// (src/app.ts, e.g. from the conversation module's simulated person), and in audio mode the
// voice it speaks and hears with (built from speech providers by the composition root, so the
// carrier stays free of them).

/** What a simulated callee says next; `hangUp` ends the call after saying it (text may be ''). */
export interface CalleeTurn {
  text: string;
  hangUp: boolean;
}

/** A simulated person at the far end of a `sim` call. */
export interface Callee {
  /** The person's name, for the machine greeting of `3333` numbers. */
  readonly name?: string;
  /** The first words on answering (before the agent speaks); '' to wait silently. */
  opening(): Promise<string>;
  /** The answer to what the agent just said. */
  reply(agentSaid: string, signal?: AbortSignal): Promise<CalleeTurn>;
}

export interface CalleeContext {
  callId: string;
  to: string;
  from: string;
}

export type CalleeFactory = (context: CalleeContext) => Callee | Promise<Callee>;

/** How the far end of an audio-mode sim call speaks and hears. */
export interface FarEndVoice {
  /** The far end's words as 20 ms frames at SESSION_RATE. */
  speak(text: string, signal: AbortSignal): AsyncIterable<AudioFrame>;
  /**
   * Ears on what our side plays: feed every frame (silence included), with when it left; `heard`
   * gets each line once our side pauses after it.
   */
  listen(
    heard: (text: string) => void,
    signal: AbortSignal,
  ): { push(frame: AudioFrame, sent?: SentBeat): void };
}
