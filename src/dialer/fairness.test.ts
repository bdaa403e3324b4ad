import { describe, expect, it } from 'vitest';
import { shareSlots, shareSlotsRound, type SlotDemand } from './fairness.ts';

const demand = (wants: Record<string, number>): SlotDemand[] =>
  Object.entries(wants).map(([id, wanted]) => ({ id, wanted }));

const asObject = (shares: Map<string, number>) => Object.fromEntries(shares);

/** The definition, one slot at a time, to check the pass-at-once implementation against. */
function reference(free: number, batches: SlotDemand[], startAfter?: string) {
  const given = new Map(batches.map((b) => [b.id, 0]));
  const start = batches.findIndex((b) => b.id === startAfter) + 1;
  let last: string | undefined;
  for (let left = free, k = 0, idle = 0; left > 0 && idle < batches.length; k++) {
    const b = batches[(start + k) % batches.length];
    if (!b) break;
    if ((given.get(b.id) ?? 0) < b.wanted) {
      given.set(b.id, (given.get(b.id) ?? 0) + 1);
      left -= 1;
      last = b.id;
      idle = 0;
    } else idle += 1;
  }
  return { shares: given, lastServed: last };
}

describe('shareSlots', () => {
  it('splits evenly, the remainder going to the first batches in rotation order', () => {
    expect(asObject(shareSlots(9, demand({ a: 100, b: 100, c: 100 })))).toEqual({ a: 3, b: 3, c: 3 });
    expect(asObject(shareSlots(10, demand({ a: 100, b: 100, c: 100 })))).toEqual({ a: 4, b: 3, c: 3 });
    expect(asObject(shareSlots(10, demand({ a: 100, b: 100, c: 100 }), 'a'))).toEqual({ a: 3, b: 4, c: 3 });
    expect(asObject(shareSlots(10, demand({ a: 100, b: 100, c: 100 }), 'c'))).toEqual({ a: 4, b: 3, c: 3 });
  });

  it('never gives a batch more than it wants, passing the rest to the others', () => {
    expect(asObject(shareSlots(10, demand({ a: 1, b: 100, c: 2 })))).toEqual({ a: 1, b: 7, c: 2 });
    expect(asObject(shareSlots(10, demand({ a: 1, b: 2, c: 3 })))).toEqual({ a: 1, b: 2, c: 3 });
    expect(asObject(shareSlots(10, demand({ a: 0, b: 0 })))).toEqual({ a: 0, b: 0 });
  });

  it('gives nothing when there are no slots, and odd inputs count as whole numbers', () => {
    expect(asObject(shareSlots(0, demand({ a: 5 })))).toEqual({ a: 0 });
    expect(asObject(shareSlots(-2, demand({ a: 5 })))).toEqual({ a: 0 });
    expect(asObject(shareSlots(2.7, demand({ a: 5, b: -1, c: Number.NaN })))).toEqual({ a: 2, b: 0, c: 0 });
    expect(shareSlots(5, []).size).toBe(0);
  });

  it('starts at the first batch when startAfter is no longer listed', () => {
    expect(asObject(shareSlots(1, demand({ a: 5, b: 5 }), 'gone'))).toEqual({ a: 1, b: 0 });
  });

  it('reports the last batch served, for the next round', () => {
    expect(shareSlotsRound(4, demand({ a: 9, b: 9, c: 9 })).lastServed).toBe('a');
    expect(shareSlotsRound(3, demand({ a: 9, b: 9, c: 9 }), 'a').lastServed).toBe('a');
    expect(shareSlotsRound(5, demand({ a: 1, b: 9, c: 1 }), 'a').lastServed).toBe('b');
    expect(shareSlotsRound(0, demand({ a: 9 })).lastServed).toBeUndefined();
  });

  it('rotating on lastServed keeps every batch within one slot of the others over many rounds', () => {
    const batches = demand({ a: 1e9, b: 1e9, c: 1e9, d: 1e9, e: 1e9 });
    const totals = new Map(batches.map((b) => [b.id, 0]));
    let after: string | undefined;
    for (let round = 0; round < 500; round++) {
      const free = 1 + ((round * 7) % 4); // 1 to 4 slots: never a multiple of 5 batches
      const { shares, lastServed } = shareSlotsRound(free, batches, after);
      for (const [id, n] of shares) totals.set(id, (totals.get(id) ?? 0) + n);
      after = lastServed;
      const counts = [...totals.values()];
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    }
  });

  it('matches the one-slot-at-a-time definition on many inputs', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let run = 0; run < 2000; run++) {
      const batches = Array.from({ length: next(6) }, (_, i) => ({ id: `b${i}`, wanted: next(12) }));
      const free = next(40);
      const startAfter = next(3) === 0 ? undefined : `b${next(7)}`;
      const got = shareSlotsRound(free, batches, startAfter);
      const want = reference(free, batches, startAfter);
      expect(asObject(got.shares)).toEqual(asObject(want.shares));
      expect(got.lastServed).toBe(want.lastServed);
    }
  });

  it('is fast with many slots and large wants', () => {
    const batches = Array.from({ length: 50 }, (_, i) => ({ id: `b${i}`, wanted: i === 0 ? 3 : 1e12 }));
    const shares = shareSlots(1e12, batches);
    expect(shares.get('b0')).toBe(3);
    expect([...shares.values()].reduce((a, b) => a + b, 0)).toBe(1e12);
  });
});
