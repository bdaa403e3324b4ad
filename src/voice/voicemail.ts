import { MACHINE_GREETING_MS } from './limits.ts';

// Whether an answering machine picked up, from what the far end does at the start of the call
// (the carrier does not say): (a) its first run of speech goes on past MACHINE_GREETING_MS with
// no turn-taking pause (a pause of at least the patience delay, or one after which the session took a turn), where a person says "Hello?"
// and waits; (b) its words are a mailbox's ("leave a message", "after the tone"...); (c) a beep
// (beep.ts). The session feeds VAD events and transcripts here while screening.

/** `carrier`: the carrier's own detection said so (Twilio's AnsweredBy). */
export type MachineReason = 'long_greeting' | 'phrase' | 'beep' | 'carrier';

const MACHINE_PHRASES: readonly RegExp[] = [
  /\bleave (?:me |us )?(?:a|your) (?:message|name|number)/,
  /\bafter the (?:tone|beep|signal)/,
  /\bat the (?:tone|beep)/,
  /\b(?:is |am |are )?(?:not available|unavailable)\b/,
  /\bvoice ?mail/,
  /\bmail ?box/,
  /\brecord your message/,
  /\b(?:can't|cannot|can not) (?:take|come to|answer) (?:your|the|this) (?:call|phone)/,
  /\bplease try again later\b/,
];

export function soundsLikeMachine(text: string): boolean {
  const normalized = text.toLowerCase().replace(/[’]/g, "'").replace(/\s+/g, ' ');
  return MACHINE_PHRASES.some((p) => p.test(normalized));
}

export interface FirstRunWatch {
  speechStart(at: number): void;
  speechEnd(at: number): void;
  /** When the first run, if still going, becomes long enough to be a machine; null otherwise. */
  dueAt(): number | null;
  /** Whether the first run is (or was) longer than a person's greeting, as of `now`. */
  isLong(now: number): boolean;
  /**
   * The session took the far end's words as a turn: the pause was a turn-taking one, whatever its
   * length (endpointing on a finished line waits less than the patience delay), so the run is over.
   */
  turnTaken(): void;
}

/** Tracks the far end's first run of speech: it ends at the first pause of `patienceMs`. */
export function createFirstRunWatch(patienceMs: number, longMs = MACHINE_GREETING_MS): FirstRunWatch {
  let runStart: number | null = null;
  let lastEnd: number | null = null;
  let speaking = false;
  let over = false;

  const pausedLongEnough = (now: number) => lastEnd !== null && !speaking && now - lastEnd >= patienceMs;

  return {
    speechStart(at) {
      if (over) return;
      if (runStart !== null && pausedLongEnough(at)) {
        over = true;
        return;
      }
      runStart ??= at;
      speaking = true;
    },
    speechEnd(at) {
      if (over) return;
      speaking = false;
      lastEnd = at;
    },
    turnTaken() {
      if (!speaking && runStart !== null) over = true;
    },
    dueAt() {
      return !over && speaking && runStart !== null ? runStart + longMs : null;
    },
    isLong(now) {
      if (runStart === null) return false;
      const end = speaking && !over ? now : (lastEnd ?? runStart);
      return end - runStart >= longMs;
    },
  };
}
