import type { Clock } from '../core/index.ts';
import { DTMF_GAP_MS, DTMF_MAX_DIGITS } from './limits.ts';
import type { Timers } from './timers.ts';

// Keys the caller presses, collected into one entry that reaches the model as a user turn. An
// entry ends on `#` (not included, unless it is the only key) or DTMF_GAP_MS after the last key.
// At most DTMF_MAX_DIGITS are kept per entry; a flood beyond that is dropped, not buffered.

const VALID = /^[0-9*#A-D]$/;

/** The user-turn text for an entry, e.g. `[The caller pressed the keys: 1 2 3]`. */
export const dtmfTurnText = (digits: readonly string[]): string =>
  `[The caller pressed the keys: ${digits.join(' ')}]`;

export interface DtmfCollector {
  press(digit: string): void;
  /** Drops what is collected and stops the timer. */
  close(): void;
}

export function createDtmfCollector(options: {
  clock: Clock;
  timers: Timers;
  onEntry(digits: string[]): void;
}): DtmfCollector {
  const { clock, timers } = options;
  let digits: string[] = [];
  let lastKeyAt = 0;
  let cancel: (() => void) | null = null;
  let closed = false;

  function emit() {
    cancel?.();
    cancel = null;
    const entry = digits;
    digits = [];
    if (entry.length > 0) options.onEntry(entry);
  }

  // One timer per entry, re-armed for the remainder when keys kept coming (no timer per key).
  function arm(ms: number) {
    cancel = timers.after(ms, () => {
      cancel = null;
      const quietFor = clock.now() - lastKeyAt;
      if (quietFor >= DTMF_GAP_MS) emit();
      else arm(DTMF_GAP_MS - quietFor);
    });
  }

  return {
    press(digit) {
      if (closed) return;
      const key = digit.toUpperCase();
      if (!VALID.test(key)) return;
      lastKeyAt = clock.now();
      if (key === '#') {
        if (digits.length === 0) digits.push('#');
        emit();
        return;
      }
      if (digits.length < DTMF_MAX_DIGITS) digits.push(key);
      if (!cancel) arm(DTMF_GAP_MS);
    },
    close() {
      closed = true;
      cancel?.();
      cancel = null;
      digits = [];
    },
  };
}
