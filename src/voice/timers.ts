import type { Clock } from '../core/index.ts';

// One-shot timers on the call's clock (a manual clock in tests), all cancelled together when the
// call ends so nothing fires, or stays pending, after it. On a clock with `setTimer` (the system
// clock) a timer is a plain timeout; on any other it is a `sleep` with its own signal.

export interface Timers {
  /** Runs `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
  /** A promise resolved after `ms` (rejected if the timers are cleared first). */
  sleep(ms: number): Promise<void>;
  /** Cancels every pending timer; later `after` calls do nothing. */
  clear(): void;
}

const noop = () => undefined;

export function createTimers(clock: Clock, onError: (err: unknown) => void): Timers {
  /** Each pending timer's way to stop it: `ended` says the call has ended (a sleep rejects). */
  const live = new Set<(ended: boolean) => void>();
  let cleared = false;
  const waitOf = (ms: number) => (Number.isFinite(ms) ? Math.max(0, ms) : 0);
  const ended = () => new Error('the call has ended');

  /** `fire` after `ms`; `stopped(ended)` when stopped first. Returns the way to stop it. */
  function start(ms: number, fire: () => void, stopped: (ended: boolean) => void): (ended: boolean) => void {
    if (clock.setTimer) {
      const stop = (why: boolean) => {
        if (!live.delete(stop)) return;
        cancelTimer();
        stopped(why);
      };
      const cancelTimer = clock.setTimer(waitOf(ms), () => {
        if (live.delete(stop)) fire();
      });
      live.add(stop);
      return stop;
    }
    const controller = new AbortController();
    const stop = (why: boolean) => {
      if (!live.delete(stop)) return;
      controller.abort(why ? ended() : new Error('cancelled'));
      stopped(why);
    };
    live.add(stop);
    clock
      .sleep(waitOf(ms), controller.signal)
      .finally(() => live.delete(stop))
      .then(() => {
        if (!controller.signal.aborted) fire();
      }, noop);
    return stop;
  }

  return {
    after(ms, fn) {
      if (cleared) return noop;
      const stop = start(
        ms,
        () => {
          try {
            fn();
          } catch (err) {
            onError(err);
          }
        },
        noop,
      );
      return () => stop(false);
    },
    sleep(ms) {
      if (cleared) return Promise.reject(ended());
      return new Promise<void>((resolve, reject) => {
        start(ms, resolve, (why) => reject(why ? ended() : new Error('cancelled')));
      });
    },
    clear() {
      cleared = true;
      for (const stop of [...live]) stop(true);
      live.clear();
    },
  };
}
