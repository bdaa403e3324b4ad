import type { Clock } from '../core/index.ts';

// One-shot timers on the call's clock (a manual clock in tests), all cancelled together when the
// call ends so nothing fires, or stays pending, after it.

export interface Timers {
  /** Runs `fn` after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
  /** A promise resolved after `ms` (rejected if the timers are cleared first). */
  sleep(ms: number): Promise<void>;
  /** Cancels every pending timer; later `after` calls do nothing. */
  clear(): void;
}

export function createTimers(clock: Clock, onError: (err: unknown) => void): Timers {
  const live = new Set<AbortController>();
  let cleared = false;

  function start(ms: number): { controller: AbortController; done: Promise<void> } {
    const controller = new AbortController();
    if (cleared) controller.abort(new Error('the call has ended'));
    else live.add(controller);
    const wait = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    const done = clock.sleep(wait, controller.signal).finally(() => live.delete(controller));
    return { controller, done };
  }

  return {
    after(ms, fn) {
      const { controller, done } = start(ms);
      done.then(
        () => {
          if (controller.signal.aborted) return;
          try {
            fn();
          } catch (err) {
            onError(err);
          }
        },
        () => undefined,
      );
      return () => controller.abort(new Error('cancelled'));
    },
    sleep(ms) {
      return start(ms).done;
    },
    clear() {
      cleared = true;
      for (const controller of live) controller.abort(new Error('the call has ended'));
      live.clear();
    },
  };
}
