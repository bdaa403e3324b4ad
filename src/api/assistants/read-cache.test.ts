import { describe, expect, it } from 'vitest';
import { createVersionedCache } from './read-cache.ts';

describe('versioned read cache', () => {
  it('answers only for the version an entry was stored at', () => {
    const cache = createVersionedCache<string>();
    cache.set('k', 3, 'v3');
    expect(cache.get('k', 3)).toBe('v3');
    expect(cache.get('k', 4)).toBeUndefined();
    // A stale entry is dropped once seen, not served later at its old version either.
    expect(cache.get('k', 3)).toBeUndefined();
    expect(cache.get('missing', 0)).toBeUndefined();
  });

  it('evicts the least recently used entry when full', () => {
    const cache = createVersionedCache<number>(2);
    cache.set('a', 1, 1);
    cache.set('b', 1, 2);
    expect(cache.get('a', 1)).toBe(1); // a is now the most recent
    cache.set('c', 1, 3);
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBe(1);
    expect(cache.get('c', 1)).toBe(3);
  });
});
