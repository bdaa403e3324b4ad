import { describe, expect, it } from 'vitest';
import { coalescePerKey } from './coalesce.ts';

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('coalescePerKey', () => {
  it('runs at once when idle, and once more after a run for any number of requests during it', async () => {
    const gates: ReturnType<typeof deferred>[] = [];
    const runs: string[] = [];
    const c = coalescePerKey((key: string) => {
      runs.push(key);
      const gate = deferred();
      gates.push(gate);
      return gate.promise;
    });
    const first = c.run('a');
    expect(runs).toEqual(['a']);
    const second = c.run('a');
    const third = c.run('a');
    expect(third).toBe(second);
    expect(runs).toEqual(['a']); // the follow-up waits for the run in progress
    gates[0]!.resolve();
    await first;
    await expect.poll(() => runs.length).toBe(2);
    // A request during the follow-up queues a new one: the follow-up may have read state too early.
    const fourth = c.run('a');
    expect(fourth).not.toBe(second);
    gates[1]!.resolve();
    await second;
    await expect.poll(() => runs.length).toBe(3);
    gates[2]!.resolve();
    await fourth;
    expect(c.size).toBe(0);
  });

  it('keeps keys apart, and a failed run still lets the follow-up run', async () => {
    const gates = new Map<string, ReturnType<typeof deferred>[]>();
    const c = coalescePerKey((key: string) => {
      const gate = deferred();
      gates.set(key, [...(gates.get(key) ?? []), gate]);
      return gate.promise;
    });
    const a = c.run('a');
    const b = c.run('b');
    expect(gates.get('a')).toHaveLength(1);
    expect(gates.get('b')).toHaveLength(1);
    const again = c.run('a');
    gates.get('a')![0]!.reject(new Error('boom'));
    await expect(a).rejects.toThrow('boom');
    await expect.poll(() => gates.get('a')!.length).toBe(2);
    gates.get('a')![1]!.resolve();
    gates.get('b')![0]!.resolve();
    await Promise.all([again, b]);
    expect(c.size).toBe(0);
  });

  it('tells onSettled when a key has nothing left', async () => {
    let settled = 0;
    const gate = deferred();
    const c = coalescePerKey(
      () => gate.promise,
      () => settled++,
    );
    const run = c.run(1);
    expect(c.size).toBe(1);
    gate.resolve();
    await run;
    await expect.poll(() => settled).toBe(1);
    expect(c.size).toBe(0);
  });
});
