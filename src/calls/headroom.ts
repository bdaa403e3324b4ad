// How many more calls this process can take before its event loop is full (docs/operations.md,
// "Overload"). The lag and busy bounds of the load gate see saturation only once it is there, and
// a call loads the loop only once it talks (after its ring), so a burst of calls would all be
// taken first. Instead the headroom predicts: from the loop's busy share and the calls talking,
// the share one call costs, and from that how many calls fit under the target share. Calls not yet
// talking (ringing, or just answered) count at that cost before it shows.

/** What the headroom reads each time it is asked. */
export interface HeadroomSample {
  /** Calls that have talked long enough for their load to show in `utilization`. */
  loaded: number;
  /** Calls taken whose load does not show yet (ringing, just answered). */
  coming: number;
  /** Of those, the calls just answered: setting up (greeting, sockets), so they load the loop too. */
  settling: number;
  /** The share (0-1) of the last window the event loop was busy. */
  utilization: number;
  /** Which window `utilization` is of (it counts up): each window updates the estimate once. */
  window: number;
}

export interface HeadroomOptions {
  /** The busy share (0-1) the calls may fill; 0 or 1 and above: no limit. */
  target: number;
  /** Calls taken before the cost of one is known, and at most that many not loaded at once. */
  unknownBudget?: number;
  /** Fewest loaded calls that estimate the cost of one (fewer: the loop's own work dominates). */
  minLoaded?: number;
}

export interface Headroom {
  /** How many more calls may be taken now. */
  allowance(sample: HeadroomSample): number;
  /** The share of the loop one talking call costs, as estimated; null until known. */
  readonly perCall: number | null;
}

/** A call's load shows in a window's busy share once it has talked this long (two 1 s windows). */
export const LOAD_SHOWS_AFTER_MS = 2_000;
export const DEFAULT_UNKNOWN_BUDGET = 100;
export const DEFAULT_MIN_LOADED = 10;

export function createHeadroom(options: HeadroomOptions): Headroom {
  const unknownBudget = options.unknownBudget ?? DEFAULT_UNKNOWN_BUDGET;
  const minLoaded = options.minLoaded ?? DEFAULT_MIN_LOADED;
  const limited = options.target > 0 && options.target < 1;
  let perCall: number | null = null;
  let lastWindow = -1;
  return {
    get perCall() {
      return perCall;
    },
    allowance({ loaded, coming, settling, utilization, window }) {
      if (!limited) return Infinity;
      // Calls setting up load the loop more than talking ones: a window with many of them (a burst
      // just answered) would price a call far too high, so it is not taken as a measure.
      if (window !== lastWindow && loaded >= minLoaded && settling * 4 <= loaded && utilization > 0) {
        lastWindow = window;
        // The whole loop is put on the calls (the API's and the store's work too): it errs high.
        // Up at once, down slowly: one light window must not let a burst in.
        const sample = utilization / loaded;
        perCall = perCall === null || sample > perCall ? sample : perCall * 0.8 + sample * 0.2;
      }
      if (perCall === null) return Math.max(0, unknownBudget - coming);
      // Never fewer than it takes to estimate again (a cost estimated under heavy API load).
      const capacity = Math.max(minLoaded, Math.floor(options.target / perCall));
      return Math.max(0, capacity - loaded - coming);
    },
  };
}
