// Time is injected so that rules which depend on it (expiry, windows, retries) are tested by
// moving a clock, not by sleeping. All times are milliseconds since the Unix epoch.

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to; for tests. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function createManualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
