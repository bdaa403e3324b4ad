import { describe, expect, it } from 'vitest';
import { createManualClock } from './clock.ts';

describe('manual clock sleeps', () => {
  it('fires sleeps in due order when time advances past them', async () => {
    const clock = createManualClock(1000);
    const woke: string[] = [];
    void clock.sleep(300).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(100).then(() => woke.push(`a@${clock.now()}`));
    expect(clock.pendingSleeps).toBe(2);
    clock.advance(99);
    await Promise.resolve();
    expect(woke).toEqual([]);
    await clock.tick(500);
    expect(woke).toEqual(['a@1100', 'b@1300']);
    expect(clock.now()).toBe(1599);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('tick lets woken code schedule further sleeps inside the same span', async () => {
    const clock = createManualClock(0);
    const times: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(10);
        times.push(clock.now());
      }
    })();
    await clock.tick(100);
    expect(times).toEqual([10, 20, 30]);
  });

  it('an aborted sleep rejects with the reason and no longer counts', async () => {
    const clock = createManualClock(0);
    const controller = new AbortController();
    const slept = clock.sleep(50, controller.signal);
    controller.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(clock.pendingSleeps).toBe(0);
    await expect(clock.sleep(5, controller.signal)).rejects.toThrow('stop');
  });
});
