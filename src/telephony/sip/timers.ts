import type { Clock } from '../../core/index.ts';

// RFC 3261 section 17's timer values, and one-shot timers on the injected clock (tests move a
// manual clock through retransmissions instead of waiting for them).

export interface SipTimerValues {
  /** Round-trip estimate: the first retransmission interval (500 ms). */
  t1: number;
  /** The longest retransmission interval of non-INVITE requests and INVITE responses (4 s). */
  t2: number;
  /** How long a message may stay in the network (5 s). */
  t4: number;
}

export const SIP_TIMERS: SipTimerValues = Object.freeze({ t1: 500, t2: 4_000, t4: 5_000 });

/** Runs `fn` after `ms` of the clock's time; the returned function cancels it. */
export function after(clock: Clock, ms: number, fn: () => void): () => void {
  if (clock.setTimer) return clock.setTimer(ms, fn);
  const controller = new AbortController();
  clock.sleep(ms, controller.signal).then(
    () => {
      if (!controller.signal.aborted) fn();
    },
    () => undefined,
  );
  return () => controller.abort();
}
