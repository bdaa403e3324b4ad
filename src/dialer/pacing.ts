// Calls-per-second pacing: a token bucket that refills continuously from the injected clock, so
// it needs no timers and a manual clock drives it exactly in tests.
//
// Credit is kept in milli-tokens and refilled by `elapsedMs * ratePerSecond` (a token per second
// is a milli-token per ms). For whole and binary-fraction rates (5, 0.5, 2.5) that product is
// exact in floating point, so a long run cannot drift above the rate; for others (0.1, 3.3) the
// error stays far below one token.

import type { Clock } from '../core/index.ts';

export interface TokenBucketOptions {
  /** Calls per second; null = unlimited. Must be > 0 when given. */
  ratePerSecond: number | null;
  /** Most tokens held at once (default max(1, rate)); ≥ 1. The bucket starts full. */
  burst?: number;
  clock: Clock;
}

export interface TokenBucket {
  /** Grants up to `n` tokens now and consumes them; returns how many (all of them when unlimited). */
  take(n: number): number;
  /** Whole tokens available now, without taking any (n itself is unknown, so unlimited is Infinity). */
  available(): number;
  /**
   * Returns tokens taken but not used (fewer recipients claimed than granted), so pacing does not
   * fall behind; never above the burst.
   */
  refund(n: number): void;
  /** Ms until at least one token is available; 0 when one is (always 0 when unlimited). */
  msUntilNext(): number;
}

const TOKEN = 1000; // milli-tokens

export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  const { ratePerSecond: rate, clock } = options;
  if (rate === null) return unlimitedBucket;
  if (!Number.isFinite(rate) || rate <= 0)
    throw new RangeError(`ratePerSecond must be > 0 or null, got ${rate}`);
  // Tokens per second are milli-tokens per ms.
  const perMs: number = rate;
  const burst = options.burst ?? Math.max(1, rate);
  if (!Number.isFinite(burst) || burst < 1) throw new RangeError(`burst must be ≥ 1, got ${burst}`);
  const capacity = burst * TOKEN;
  let credit = capacity;
  let refilledAt = clock.now();

  function refill(): void {
    const now = clock.now();
    // A clock set backwards must not mint credit when it moves forward again over the same span.
    if (now <= refilledAt) return;
    credit = Math.min(capacity, credit + (now - refilledAt) * perMs);
    refilledAt = now;
  }

  return {
    take(n) {
      refill();
      const granted = Math.min(wholeCount(n), Math.floor(credit / TOKEN));
      credit -= granted * TOKEN;
      return granted;
    },
    available() {
      refill();
      return Math.floor(credit / TOKEN);
    },
    refund(n) {
      refill();
      credit = Math.min(capacity, credit + wholeCount(n) * TOKEN);
    },
    msUntilNext() {
      refill();
      if (credit >= TOKEN) return 0;
      let ms = Math.ceil((TOKEN - credit) / perMs);
      // Guard against the division rounding down: after `ms` a token must really be there.
      while (credit + ms * perMs < TOKEN) ms += 1;
      return ms;
    },
  };
}

/** n as a count of tokens: negative, NaN and fractions round down to what can be granted. */
function wholeCount(n: number): number {
  return Number.isNaN(n) ? 0 : Math.max(0, Math.floor(n));
}

const unlimitedBucket: TokenBucket = {
  take: (n) => wholeCount(n),
  available: () => Infinity,
  refund: () => undefined,
  msUntilNext: () => 0,
};
