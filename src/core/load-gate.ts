import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { Clock } from './clock.ts';

// Whether this process is saturated (docs/operations.md, "Overload"): the event loop that runs
// the calls' sessions, the API and the store is late by more than a bound, or busy for more than
// a share of the time (its utilization: the lag grows only once the loop is full, the
// utilization grows with every call, so it shows saturation coming). A saturated process
// takes no new calls (they wait `pending` for a slot here later, or another node takes them), so
// the calls it has keep their timing instead of every call degrading together.
//
// The lag shows a call's load only once the call talks (after its ring) and the windows have
// passed, so a burst of calls would all be taken before the first sign of it: a process that is
// not saturated still takes at most `claimsPerWindow` new calls a window, and the lag measured
// meanwhile stops it before it takes far more than it can serve.

export interface LoadGateOptions {
  clock: Clock;
  /** The event loop's 99th percentile delay over a window above this saturates (default 100 ms). */
  maxLagMs?: number;
  /** How many windows in a row must be over the bound (default 2: one GC pause or load is not overload). */
  windowsOver?: number;
  /** A saturated process is clear again once the p99 falls below this (default half the max). */
  clearLagMs?: number;
  /** How long each measurement window is (default 1000 ms of `clock`). */
  windowMs?: number;
  /** New calls this process may take in a window while not saturated (default Infinity: any). */
  claimsPerWindow?: number;
  /** The p99 delay (ms) of the window just ended; default Node's event-loop delay histogram. */
  sample?: () => number;
  /**
   * The share of a window the event loop was busy (0-1) above this is over too (default 1: off).
   * Clear again below `clearUtilization` (default 0.1 under it).
   */
  maxUtilization?: number;
  clearUtilization?: number;
  /** The utilization (0-1) of the window just ended; default Node's `eventLoopUtilization()`. */
  sampleUtilization?: () => number;
  signal?: AbortSignal;
}

export interface LoadGate {
  readonly saturated: boolean;
  /** The last window's p99 event-loop delay (ms). */
  readonly lagMs: number;
  /** The share of the last window the event loop was busy (0-1). */
  readonly utilization: number;
  /** How many windows have been measured (which window `lagMs` and `utilization` are of). */
  readonly windows: number;
  /** How many new calls this process may take now: 0 while saturated, else what is left of the window's. */
  allowance(): number;
  /** Counts calls just taken against the window's allowance. */
  claimed(calls: number): void;
}

export function createLoadGate(options: LoadGateOptions): LoadGate {
  const maxLagMs = options.maxLagMs ?? 100;
  const windowsOver = options.windowsOver ?? 2;
  const clearLagMs = options.clearLagMs ?? maxLagMs / 2;
  const windowMs = options.windowMs ?? 1000;
  const claimsPerWindow = options.claimsPerWindow ?? Infinity;
  let sample = options.sample;
  let histogram: ReturnType<typeof monitorEventLoopDelay> | null = null;
  if (!sample) {
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    histogram = h;
    sample = () => {
      // The histogram counts in ns and includes the 10 ms sampling resolution itself.
      const p99 = h.count > 0 ? Math.max(0, h.percentile(99) / 1e6 - 10) : 0;
      h.reset();
      return p99;
    };
  }
  const read = sample;
  const maxUtilization = options.maxUtilization ?? 1;
  const clearUtilization =
    options.clearUtilization ?? (maxUtilization >= 1 ? Infinity : maxUtilization - 0.1);
  let readUtilization = options.sampleUtilization;
  if (!readUtilization) {
    let last = performance.eventLoopUtilization();
    readUtilization = () => {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      return share;
    };
  }
  const utilizationOf = readUtilization;
  let saturated = false;
  let lagMs = 0;
  let utilization = 0;
  let over = 0;
  let claims = 0;
  let windows = 0;
  void (async () => {
    while (!options.signal?.aborted) {
      try {
        await options.clock.sleep(windowMs, options.signal);
      } catch {
        break;
      }
      lagMs = read();
      utilization = utilizationOf();
      windows += 1;
      claims = 0;
      over = lagMs > maxLagMs || utilization > maxUtilization ? over + 1 : 0;
      if (!saturated && over >= windowsOver) saturated = true;
      else if (saturated && lagMs < clearLagMs && utilization < clearUtilization) saturated = false;
    }
    histogram?.disable();
  })();
  return {
    get saturated() {
      return saturated;
    },
    get lagMs() {
      return lagMs;
    },
    get utilization() {
      return utilization;
    },
    get windows() {
      return windows;
    },
    allowance() {
      return saturated ? 0 : Math.max(0, claimsPerWindow - claims);
    },
    claimed(calls) {
      claims += calls;
    },
  };
}
