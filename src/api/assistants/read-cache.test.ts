import { describe, expect, it } from 'vitest';
import { createVersionedCache } from './read-cache.ts';

describe('versioned read cache', () => {
  it('answers only for the version an entry was stored at', () => {
    const cache = createVersionedCache();
    cache.set('k', 3, 'v3');
    expect(cache.get('k', 3)).toBe('v3');
    expect(cache.get('k', 4)).toBeUndefined();
    // A stale entry is dropped once seen, not served later at its old version either.
    expect(cache.get('k', 3)).toBeUndefined();
    expect(cache.get('missing', 0)).toBeUndefined();
  });

  it('evicts the least recently used entries to stay within its size', () => {
    const cache = createVersionedCache(80);
    cache.set('a', 1, 'a'.repeat(10));
    cache.set('b', 1, 'b'.repeat(10));
    expect(cache.get('a', 1)).toBe('a'.repeat(10)); // a is now the most recent
    for (const k of ['c', 'd', 'e', 'f', 'g', 'h']) cache.set(k, 1, k.repeat(10));
    // 80 characters hold eight values of ten: adding the ninth pushed out the oldest, b.
    cache.set('i', 1, 'i'.repeat(10));
    expect(cache.get('b', 1)).toBeUndefined();
    expect(cache.get('a', 1)).toBe('a'.repeat(10));
    expect(cache.get('i', 1)).toBe('i'.repeat(10));
  });

  it('does not keep a value larger than an eighth of its size', () => {
    const cache = createVersionedCache(80);
    cache.set('small', 1, 'x'.repeat(10));
    cache.set('big', 1, 'y'.repeat(11));
    expect(cache.get('big', 1)).toBeUndefined();
    expect(cache.get('small', 1)).toBe('x'.repeat(10));
  });

  it('replacing a key frees what it held', () => {
    const cache = createVersionedCache(80);
    for (let v = 0; v < 20; v++) cache.set('k', v, 'z'.repeat(10));
    cache.set('other', 1, 'o'.repeat(10));
    expect(cache.get('k', 19)).toBe('z'.repeat(10));
    expect(cache.get('other', 1)).toBe('o'.repeat(10));
  });
});
