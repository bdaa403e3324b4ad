import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { createTokenBucket } from './pacing.ts';

/** Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG), so a failing run replays. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('createTokenBucket', () => {
  it('starts full, grants no more than it holds, then refills continuously', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 5, clock });
    expect(bucket.take(10)).toBe(5);
    expect(bucket.take(1)).toBe(0);
    expect(bucket.msUntilNext()).toBe(200);
    clock.advance(199);
    expect(bucket.take(1)).toBe(0);
    expect(bucket.msUntilNext()).toBe(1);
    clock.advance(1);
    expect(bucket.msUntilNext()).toBe(0);
    expect(bucket.take(3)).toBe(1);
    clock.advance(500); // 2.5 tokens
    expect(bucket.available()).toBe(2);
    expect(bucket.take(3)).toBe(2);
    expect(bucket.msUntilNext()).toBe(100); // the half token left needs 100 ms more
  });

  it('never holds more than the burst however long it idles', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 5, burst: 3, clock });
    clock.advance(3_600_000);
    expect(bucket.take(100)).toBe(3);
  });

  it('over a long random run never grants more than burst + rate * t in any span, nor refuses while holding a token', () => {
    const clock = createManualClock(1_000_000);
    const rate = 5;
    const burst = 5;
    const bucket = createTokenBucket({ ratePerSecond: rate, clock });
    const random = lcg(42);
    const grants: { at: number; n: number }[] = [];
    let refusedWithTokenLeft = 0;
    for (let i = 0; i < 3000; i++) {
      // Uneven polling: often within a few ms, sometimes after a long pause; greedy demand.
      clock.advance(random() < 0.1 ? Math.floor(random() * 5000) : Math.floor(random() * 150));
      const asked = 1 + Math.floor(random() * 8);
      const n = bucket.take(asked);
      if (n < asked && bucket.msUntilNext() === 0) refusedWithTokenLeft += 1;
      if (n > 0) grants.push({ at: clock.now(), n });
    }
    expect(refusedWithTokenLeft).toBe(0);
    expect(grants.length).toBeGreaterThan(1000);
    // The worst spans start and end on grants: check every [grants[i].at, grants[j].at].
    const prefix = [0];
    for (const g of grants) prefix.push((prefix[prefix.length - 1] ?? 0) + g.n);
    let worstExcess = -Infinity;
    for (let i = 0; i < grants.length; i++) {
      for (let j = i; j < grants.length; j++) {
        const span = (grants[j]?.at ?? 0) - (grants[i]?.at ?? 0);
        const granted = (prefix[j + 1] ?? 0) - (prefix[i] ?? 0);
        worstExcess = Math.max(worstExcess, granted - (burst + (rate * span) / 1000));
      }
    }
    expect(worstExcess).toBeLessThanOrEqual(0);
  });

  it('grants exactly the rate to a caller polling on msUntilNext', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 5, clock });
    let granted = bucket.take(Infinity);
    for (let i = 0; i < 1000; i++) {
      clock.advance(bucket.msUntilNext());
      granted += bucket.take(Infinity);
    }
    // 5 up front, then one per 200 ms.
    expect(granted).toBe(1005);
    expect(clock.now()).toBe(200_000);
  });

  it('handles fractional rates: 0.5/s gives one call every two seconds', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 0.5, clock });
    expect(bucket.take(5)).toBe(1); // burst defaults to max(1, rate) = 1
    expect(bucket.msUntilNext()).toBe(2000);
    clock.advance(1999);
    expect(bucket.take(1)).toBe(0);
    clock.advance(1);
    expect(bucket.take(1)).toBe(1);
    clock.advance(60_000);
    expect(bucket.take(100)).toBe(1);
  });

  it('2.5/s holds 2.5 tokens and grants whole ones', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 2.5, clock });
    expect(bucket.take(10)).toBe(2);
    expect(bucket.msUntilNext()).toBe(200); // 0.5 held, 0.5 more at 2.5/s
    clock.advance(200);
    expect(bucket.take(10)).toBe(1);
  });

  it.each([3, 0.1, 7.3, 1 / 3])('at %d/s a token is there exactly msUntilNext from now', (rate) => {
    // Part of one token's interval already spent, from none to nearly all of it.
    for (const part of [0, 0.001, 0.3, 0.999]) {
      const spent = Math.floor((part * 1000) / rate);
      const clock = createManualClock(0);
      const bucket = createTokenBucket({ ratePerSecond: rate, burst: 1, clock });
      expect(bucket.take(1)).toBe(1);
      clock.advance(spent);
      const wait = bucket.msUntilNext();
      expect(wait).toBeGreaterThan(0);
      clock.advance(wait);
      expect(bucket.take(1)).toBe(1);
    }
  });

  it('unlimited grants everything and never waits', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: null, clock });
    expect(bucket.take(1_000_000)).toBe(1_000_000);
    expect(bucket.take(1_000_000)).toBe(1_000_000);
    expect(bucket.msUntilNext()).toBe(0);
    expect(bucket.available()).toBe(Infinity);
  });

  it('refund returns unused tokens, up to the burst', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 5, clock });
    expect(bucket.take(5)).toBe(5);
    bucket.refund(2);
    expect(bucket.take(5)).toBe(2);
    bucket.refund(50);
    expect(bucket.available()).toBe(5);
  });

  it('counts odd requests as whole tokens', () => {
    const clock = createManualClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 5, clock });
    expect(bucket.take(0)).toBe(0);
    expect(bucket.take(-3)).toBe(0);
    expect(bucket.take(Number.NaN)).toBe(0);
    expect(bucket.take(2.9)).toBe(2);
    expect(bucket.available()).toBe(3);
  });

  it('a clock set backwards mints no tokens', () => {
    const clock = createManualClock(10_000);
    const bucket = createTokenBucket({ ratePerSecond: 1, clock });
    expect(bucket.take(1)).toBe(1);
    clock.set(5_000);
    expect(bucket.take(1)).toBe(0);
    clock.set(10_999);
    expect(bucket.take(1)).toBe(0);
    clock.set(11_000);
    expect(bucket.take(1)).toBe(1);
  });

  it('rejects rates and bursts it cannot honour', () => {
    const clock = createManualClock(0);
    for (const ratePerSecond of [0, -1, Number.NaN, Infinity]) {
      expect(() => createTokenBucket({ ratePerSecond, clock })).toThrow(RangeError);
    }
    expect(() => createTokenBucket({ ratePerSecond: 5, burst: 0.5, clock })).toThrow(RangeError);
  });
});
