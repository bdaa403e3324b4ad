import { describe, expect, it } from 'vitest';
import { createAsyncQueue } from './async-queue.ts';

async function drain<T>(q: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of q) out.push(v);
  return out;
}

describe('async queue', () => {
  it('gives values pushed before and after the reader waits, in order, then ends on close', async () => {
    const q = createAsyncQueue<number>();
    q.push(1);
    const reading = drain(q);
    q.push(2);
    await Promise.resolve();
    q.push(3);
    q.close();
    q.push(4);
    expect(await reading).toEqual([1, 2, 3]);
  });

  it('throws the failure after the queued values', async () => {
    const q = createAsyncQueue<string>();
    q.push('a');
    q.fail(new Error('boom'));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const v of q) seen.push(v);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toEqual(['a']);
  });

  it('keeps order across its compaction of read values', async () => {
    const q = createAsyncQueue<number>();
    const reading = drain(q);
    for (let i = 0; i < 5000; i += 1) q.push(i);
    q.close();
    const out = await reading;
    expect(out).toHaveLength(5000);
    expect(out.every((v, i) => v === i)).toBe(true);
    expect(q.size).toBe(0);
  });
});
