import type { Clock } from '../../core/index.ts';

// How long things take on the simulated line, in milliseconds at speed 1 (real time). Every wait
// is multiplied by the carrier's speed: 0.1 runs ten times faster, 0 does not wait at all (load
// tests). The figures aim at plausible call durations, not at any one real network.

/** Ringing before any outcome is decided. */
export const RING_MS = 3_000;
/** Total ringing before a `0000` number gives up as no-answer. */
export const NO_ANSWER_MS = 20_000;
/** An answering machine hangs up this long after its beep if we have not hung up first. */
export const MACHINE_MESSAGE_MS = 60_000;
/** A person's pause between hearing the agent out and starting to answer. */
export const THINK_MS = 500;
/**
 * In audio mode, a person stays on the line this long after its last words before hanging up, as
 * people do: the other side's ears need a moment of silence to know the line ended, or they lose it.
 */
export const HANG_UP_PAUSE_MS = 1_500;
/** Speaking time per character of text (about 170 words a minute), for either side. */
export const SPEAK_MS_PER_CHAR = 60;
/** No single utterance takes longer than this to say or to hear. */
export const MAX_SPEAK_MS = 20_000;

/** How long it takes to say `text` aloud. */
export function speakingMs(text: string): number {
  return Math.min(MAX_SPEAK_MS, text.length * SPEAK_MS_PER_CHAR);
}

/** Waits scaled by speed. */
export interface SimTimer {
  readonly speed: number;
  /**
   * Waits `ms × speed` on the clock; rejects with the signal's reason when aborted. A zero wait
   * does not touch the clock at all, so speed 0 never yields to timers (it still checks the signal).
   */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
}

export function createSimTimer(clock: Clock, speed: number): SimTimer {
  if (!Number.isFinite(speed) || speed < 0)
    throw new RangeError(`sim speed must be a number >= 0, got ${speed}`);
  return {
    speed,
    wait(ms, signal) {
      const scaled = Math.round(ms * speed);
      if (scaled <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
      return clock.sleep(scaled, signal);
    },
  };
}
