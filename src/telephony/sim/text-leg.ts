import type { CallLeg, LegEndReason, TextLeg } from '../types.ts';

// One simulated call leg in text mode, seen from both ends. Our side gets the `CallLeg` port with
// its `text` turns (no frames flow: the media side is inert), plus a log for tests and debugging;
// the simulated far end drives the leg through `RemoteEnd`, which the carrier keeps to itself.

/** One line said on the call; `from: 'local'` is us (the agent), `'remote'` the far end. */
export interface SimLogEntry {
  at: number;
  from: 'local' | 'remote';
  text: string;
}

/** The `sim` carrier's leg: the port plus what it records. */
export interface SimLeg extends CallLeg {
  readonly text: TextLeg;
  /** Everything said on the call, both sides, in order (including what a machine "recorded"). */
  readonly log: readonly SimLogEntry[];
  /** Why the leg ended; null while it is up. */
  readonly endReason: LegEndReason | null;
  /** Set when the simulated far end broke (a callee threw); the leg then ended `carrier_failure`. */
  readonly error: unknown;
}

/** How the simulated far end acts on a leg. */
export interface RemoteEnd {
  /** Aborted once the leg has ended, so far-end work in flight (an LLM reply) stops. */
  readonly signal: AbortSignal;
  /** Queues an utterance for our side; ignored once the leg has ended. */
  say(text: string): void;
  /** Ends the leg (first end wins). */
  end(reason: LegEndReason, error?: unknown): void;
  /** Registers what to do with each line our side says (one handler). */
  onHeard(handler: (text: string) => void): void;
}

interface Waiter {
  resolve: (text: string | null) => void;
  detach: () => void;
}

export function createSimLeg(
  sid: string,
  now: () => number,
  answeredBy: TextLeg['answeredBy'] = 'human',
): { leg: SimLeg; remote: RemoteEnd } {
  const log: SimLogEntry[] = [];
  const queue: string[] = [];
  const waiters: Waiter[] = [];
  const stop = new AbortController();
  let endReason: LegEndReason | null = null;
  let error: unknown = undefined;
  let heard: (text: string) => void = () => {};
  let resolveEnded: (reason: LegEndReason) => void = () => {};
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));

  function end(reason: LegEndReason, cause?: unknown) {
    if (endReason) return;
    endReason = reason;
    error = cause;
    // Waiters exist only while the queue is empty, so nothing said is skipped by this.
    for (const waiter of waiters.splice(0)) {
      waiter.detach();
      waiter.resolve(null);
    }
    stop.abort(new Error(`call leg ended: ${reason}`));
    resolveEnded(reason);
  }

  const text: TextLeg = {
    answeredBy,
    listen(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      // What was said before the end is still returned after it; then null.
      const next = queue.shift();
      if (next !== undefined) return Promise.resolve(next);
      if (endReason) return Promise.resolve(null);
      return new Promise<string | null>((resolve, reject) => {
        const onAbort = () => {
          const index = waiters.indexOf(waiter);
          if (index >= 0) waiters.splice(index, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = { resolve, detach: () => signal?.removeEventListener('abort', onAbort) };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    async say(text) {
      if (endReason) return;
      log.push({ at: now(), from: 'local', text });
      heard(text);
    },
  };

  const leg: SimLeg = {
    sid,
    ended,
    text,
    get log() {
      return log;
    },
    get endReason() {
      return endReason;
    },
    get error() {
      return error;
    },
    receive() {},
    play() {},
    clear() {},
    playedMs: 0,
    queuedMs: 0,
    drained: () => Promise.resolve(),
    async sendDtmf(digits) {
      if (!endReason) log.push({ at: now(), from: 'local', text: `[dtmf ${digits}]` });
    },
    async transfer(to) {
      if (endReason) throw new Error('the call has ended');
      log.push({ at: now(), from: 'local', text: `[transfer ${to}]` });
      end('local_hangup');
    },
    async hangup() {
      end('local_hangup');
    },
  };

  const remote: RemoteEnd = {
    signal: stop.signal,
    say(text) {
      if (endReason) return;
      log.push({ at: now(), from: 'remote', text });
      const waiter = waiters.shift();
      if (waiter) {
        waiter.detach();
        waiter.resolve(text);
      } else queue.push(text);
    },
    end,
    onHeard(handler) {
      heard = handler;
    },
  };

  return { leg, remote };
}
