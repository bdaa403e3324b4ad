// A queue read as an async iterable: producers `push` without waiting, one consumer reads in
// order. The speech streams (VAD events, STT results, TTS audio) and the media legs use it so no
// producer ever blocks on its reader.

export interface AsyncQueue<T> extends AsyncIterable<T> {
  push(value: T): void;
  /** No more values: the reader ends after the queued ones. */
  close(): void;
  /** The reader throws `error` after the queued values. */
  fail(error: unknown): void;
  readonly closed: boolean;
  /** Values queued and not yet read. */
  readonly size: number;
}

export function createAsyncQueue<T>(): AsyncQueue<T> {
  // A ring of values read by index: shift() on a long array is O(n).
  let values: T[] = [];
  let head = 0;
  let closed = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;

  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  return {
    push(value) {
      if (closed) return;
      values.push(value);
      signal();
    },
    close() {
      closed = true;
      signal();
    },
    fail(error) {
      if (closed) return;
      failure = { error };
      closed = true;
      signal();
    },
    get closed() {
      return closed;
    },
    get size() {
      return values.length - head;
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (head < values.length) {
          const value = values[head] as T;
          head += 1;
          if (head > 1024 && head * 2 > values.length) {
            values = values.slice(head);
            head = 0;
          }
          yield value;
          continue;
        }
        if (failure) throw failure.error;
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
