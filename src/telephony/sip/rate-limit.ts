// Requests that open something (INVITE, REGISTER, OPTIONS, a SUBSCRIBE...) outside a dialog are
// counted per source address in a token bucket: a scanner flooding them is dropped without an
// answer, and never rings an agent or costs a slot. Sources are forgotten once their bucket is full
// again, so the map stays as small as the set of active senders.

export interface SourceLimiter {
  /** Whether one more request from `address` may go on at time `now`. */
  take(address: string, now: number): boolean;
  readonly tracked: number;
}

export function createSourceLimiter(options: {
  perSecond: number;
  burst: number;
  maxSources?: number;
}): SourceLimiter {
  const { perSecond, burst } = options;
  const maxSources = options.maxSources ?? 10_000;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(address, now) {
      let bucket = buckets.get(address);
      if (bucket) {
        bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
        bucket.at = now;
      } else {
        if (buckets.size >= maxSources) {
          // Forget full buckets first; a map still too big refuses new sources until some refill.
          for (const [key, b] of buckets) {
            if (b.tokens + ((now - b.at) / 1000) * perSecond >= burst) buckets.delete(key);
          }
          if (buckets.size >= maxSources) return false;
        }
        bucket = { tokens: burst, at: now };
        buckets.set(address, bucket);
      }
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
    get tracked() {
      return buckets.size;
    },
  };
}
