// Time is injected so that rules which depend on it (expiry, windows, retries, pacing) are tested
// by moving a clock, not by sleeping. All times are milliseconds since the Unix epoch.

import { setTimeout as sleepReal } from 'node:timers/promises';

export interface Clock {
  now(): number;
  /**
   * Resolves once `ms` of this clock's time has passed; rejects with the signal's reason when
   * aborted first. Long waits (retries, pacing, simulated callers) go through this, so tests move
   * a manual clock instead of sleeping.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: runs `fn` after `ms` unless the returned function is called first. The same as a
   * `sleep` with a signal, without an AbortController, listener and rejection per timer: calls
   * arm and cancel timers for every utterance. A clock without it gets `sleep` (a manual clock).
   */
  setTimer?(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepReal(Math.max(0, ms), undefined, signal ? { signal } : undefined),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};

/** A clock that moves only when told to; for tests. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  /** Moves time forward and fires every sleep due by then, synchronously, in due order. */
  advance(ms: number): void;
  /**
   * Moves time forward one due sleep at a time, letting the code each wakes run (and schedule
   * more sleeps) before going on; ends at now + ms.
   */
  tick(ms: number): Promise<void>;
  /** Sleeps not yet due (for tests that wait until some code is waiting). */
  readonly pendingSleeps: number;
}

interface Sleeper {
  due: number;
  order: number;
  resolve: () => void;
}

const flushMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createManualClock(startMs = Date.UTC(2026, 0, 1)): ManualClock {
  let current = startMs;
  let order = 0;
  const sleepers = new Set<Sleeper>();

  function nextDue(limit: number): Sleeper | undefined {
    let next: Sleeper | undefined;
    for (const s of sleepers) {
      if (s.due > limit) continue;
      if (!next || s.due < next.due || (s.due === next.due && s.order < next.order)) next = s;
    }
    return next;
  }

  function fire(s: Sleeper) {
    sleepers.delete(s);
    s.resolve();
  }

  return {
    now: () => current,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const sleeper: Sleeper = {
          due: current + ms,
          order: order++,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          sleepers.delete(sleeper);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.add(sleeper);
      });
    },
    set: (ms) => {
      current = ms;
      for (let s = nextDue(current); s; s = nextDue(current)) fire(s);
    },
    advance: (ms) => {
      const target = current + ms;
      for (let s = nextDue(target); s; s = nextDue(target)) {
        current = Math.max(current, s.due);
        fire(s);
      }
      current = target;
    },
    async tick(ms) {
      const target = current + ms;
      await flushMacrotask();
      for (let s = nextDue(target); s; s = nextDue(target)) {
        current = Math.max(current, s.due);
        fire(s);
        await flushMacrotask();
      }
      current = target;
      await flushMacrotask();
    },
    get pendingSleeps() {
      return sleepers.size;
    },
  };
}

let lastMs = Number.NaN;
let lastIso = '';

/**
 * ISO 8601 of an epoch time in ms. The last answer is kept: lists print runs of equal times
 * (a page of recipients added by one request), and formatting costs more than the comparison.
 */
export function toIso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
