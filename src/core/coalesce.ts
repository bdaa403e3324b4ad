// Work that only has to happen "again after now", not once per request: admitting waiting calls
// after a call ended, telling other processes that a slot is free. A burst of requests costs two
// runs (the one in progress and one after it), not one each.

export interface Coalesced<K> {
  /**
   * Runs the work for `key` now, or, when it is running, once more after it; requests made while
   * that follow-up waits join it. Resolves (or rejects) with the run that covers this request.
   */
  run(key: K): Promise<void>;
  /** Keys with a run in progress or waiting. */
  readonly size: number;
}

/** `work` at most once at a time per key; `onSettled` is told whenever a key has nothing left. */
export function coalescePerKey<K>(work: (key: K) => Promise<void>, onSettled?: () => void): Coalesced<K> {
  const running = new Map<K, Promise<void>>();
  const waiting = new Map<K, Promise<void>>();
  return {
    run(key) {
      const joined = waiting.get(key);
      if (joined) return joined;
      const previous = running.get(key);
      const start = () => {
        waiting.delete(key);
        return work(key);
      };
      const next = previous ? previous.then(start, start) : start();
      if (previous) waiting.set(key, next);
      running.set(key, next);
      const settle = () => {
        if (running.get(key) === next) running.delete(key);
        onSettled?.();
      };
      next.then(settle, settle);
      return next;
    },
    get size() {
      return running.size;
    },
  };
}
