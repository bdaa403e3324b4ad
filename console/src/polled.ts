import { useEffect, useRef, useState } from 'preact/hooks';
import { ParleyError } from '../../sdk/index.ts';

// A record that changes on the server while its page is open (a campaign being dialed, a
// simulation run), read again every few seconds until it is finished.

export interface Polled<T> {
  record: T | undefined;
  /** Why the first read failed (the page has nothing to show). */
  loadError: unknown;
  /** Why the last read failed, once there is a record (still read again when that may help). */
  pollError: unknown;
  /** Drops the reads under way: an action is changing the record. */
  hold: () => void;
  /** Shows the record an action answered with; the reads sent before it are dropped. */
  replace: (record: T) => void;
}

/**
 * Reads the record now and every `everyMs` until `finished(record)` or a refusal (not found, say);
 * no answer or a server error is tried again. Starts over when `deps` change.
 */
export function usePolled<T>(
  read: () => Promise<T>,
  finished: (record: T) => boolean,
  everyMs: number,
  deps: unknown[],
): Polled<T> {
  const [record, setRecord] = useState<T | undefined>(undefined);
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const [pollError, setPollError] = useState<unknown>(undefined);
  // Bumped by `hold` and `replace`, so that an answer to a read sent before cannot undo them.
  const seq = useRef(0);
  const latest = useRef<T | undefined>(undefined);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let loaded = false;
    setRecord(undefined);
    setLoadError(undefined);
    setPollError(undefined);
    latest.current = undefined;
    const poll = async () => {
      const mine = seq.current;
      let again = true;
      try {
        const r = await read();
        if (!live) return;
        if (mine === seq.current) {
          loaded = true;
          latest.current = r;
          setRecord(r);
          setPollError(undefined);
        }
      } catch (err) {
        if (!live) return;
        again = err instanceof ParleyError && err.retryable;
        if (loaded) setPollError(err);
        else setLoadError(err);
      }
      if (!live || !again || (latest.current !== undefined && finished(latest.current))) return;
      timer = setTimeout(() => void poll(), everyMs);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, deps);

  const hold = () => {
    seq.current++;
  };
  const replace = (r: T) => {
    seq.current++;
    latest.current = r;
    setRecord(r);
  };
  return { record, loadError, pollError, hold, replace };
}
