import { describe, expect, it } from 'vitest';
import { groupCommit } from './group-commit.ts';

describe('groupCommit', () => {
  it('commits the first item alone and everything requested meanwhile as the next group', async () => {
    const groups: number[][] = [];
    let release = () => undefined as void;
    const commit = groupCommit<number, string>({
      maxGroup: 3,
      async commit(items) {
        groups.push([...items]);
        if (groups.length === 1) await new Promise<void>((r) => (release = r));
        return items.map((i) => `ok ${i}`);
      },
    });
    const results = [1, 2, 3, 4, 5, 6].map((i) => commit(i));
    release();
    expect(await Promise.all(results)).toEqual(['ok 1', 'ok 2', 'ok 3', 'ok 4', 'ok 5', 'ok 6']);
    // At most maxGroup per group, in order.
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('retries a failed group one item at a time: only the bad item fails', async () => {
    const failed: number[] = [];
    let hold: Promise<void> | null = new Promise<void>((r) => setTimeout(r, 0));
    const commit = groupCommit<number, number>({
      maxGroup: 10,
      onGroupFailed: (_err, size) => failed.push(size),
      async commit(items) {
        if (hold) {
          const h = hold;
          hold = null;
          await h;
        }
        if (items.includes(13)) throw new Error(`bad group ${items.join(',')}`);
        return items.map((i) => i * 2);
      },
    });
    const results = await Promise.allSettled([commit(1), commit(2), commit(13), commit(4)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      2,
      4,
      'bad group 13',
      8,
    ]);
    expect(failed).toEqual([3]);
  });
});
