import { ParleyError, type Clock } from '../core/index.ts';

// A per-key token bucket in this process's memory, for the unauthenticated (public widget) chat
// endpoints (WIRE.md sections 1 and 6). Each key may make `requests` requests per `windowMs`,
// refilled continuously; an empty bucket answers 429 with Retry-After.

export interface RateLimitOptions {
  /** Requests allowed per window (also the burst size). */
  requests: number;
  windowMs: number;
}

export const DEFAULT_PUBLIC_RATE_LIMIT: RateLimitOptions = { requests: 20, windowMs: 60_000 };
const MAX_KEYS = 100_000;

export class RateLimitedError extends ParleyError {
  override name = 'RateLimitedError';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(`rate limit exceeded; retry after ${retryAfterSeconds} seconds`, {
      code: 'rate_limited',
      status: 429,
      category: 'rate_limit',
      retryable: true,
    });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface RateLimiter {
  /** Takes one token for `key`, or throws RateLimitedError. */
  take(key: string): void;
}

export function createRateLimiter(options: RateLimitOptions, clock: Clock): RateLimiter {
  const capacity = Math.max(1, options.requests);
  const perMs = capacity / Math.max(1, options.windowMs);
  const buckets = new Map<string, { tokens: number; at: number }>();

  return {
    take(key) {
      const now = clock.now();
      const bucket = buckets.get(key);
      let tokens = capacity;
      if (bucket) {
        tokens = Math.min(capacity, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
        // Re-inserted below, so the map's order is least recently used first.
        buckets.delete(key);
      } else if (buckets.size >= MAX_KEYS) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      if (tokens < 1) {
        buckets.set(key, { tokens, at: now });
        throw new RateLimitedError(Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)));
      }
      buckets.set(key, { tokens: tokens - 1, at: now });
    },
  };
}
