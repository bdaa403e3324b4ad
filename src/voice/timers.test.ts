import { describe, expect, it } from 'vitest';
import { createManualClock, type Clock, type ManualClock } from '../core/index.ts';
import { createTimers } from './timers.ts';

// The call's timers, on a clock with only `sleep` (a manual clock) and on one with `setTimer`
// (the system clock's fast path, here on the manual clock's time).

function withSetTimer(clock: ManualClock): Clock {
  return {
    now: () => clock.now(),
    sleep: (ms, signal) => clock.sleep(ms, signal),
    setTimer(ms, fn) {
      const controller = new AbortController();
      clock.sleep(ms, controller.signal).then(fn, () => undefined);
      return () => controller.abort();
    },
  };
}

describe.each([
  { kind: 'sleep only', wrap: (clock: ManualClock): Clock => clock },
  { kind: 'setTimer', wrap: withSetTimer },
])('call timers on a clock with $kind', ({ wrap }) => {
  it('runs a timer when due, not before, and not once cancelled', async () => {
    const clock = createManualClock();
    const timers = createTimers(wrap(clock), () => undefined);
    const fired: string[] = [];
    timers.after(100, () => fired.push('a'));
    const cancel = timers.after(150, () => fired.push('b'));
    timers.after(200, () => fired.push('c'));
    await clock.tick(99);
    expect(fired).toEqual([]);
    cancel();
    await clock.tick(101);
    expect(fired).toEqual(['a', 'c']);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('resolves a sleep when due', async () => {
    const clock = createManualClock();
    const timers = createTimers(wrap(clock), () => undefined);
    let done = false;
    void timers.sleep(50).then(() => (done = true));
    await clock.tick(49);
    expect(done).toBe(false);
    await clock.tick(1);
    expect(done).toBe(true);
  });

  it('clear() stops every pending timer, rejects pending sleeps, and refuses later ones', async () => {
    const clock = createManualClock();
    const timers = createTimers(wrap(clock), () => undefined);
    const fired: string[] = [];
    timers.after(100, () => fired.push('a'));
    const pending = timers.sleep(100);
    timers.clear();
    await expect(pending).rejects.toThrow('the call has ended');
    timers.after(10, () => fired.push('late'));
    await expect(timers.sleep(10)).rejects.toThrow('the call has ended');
    await clock.tick(500);
    expect(fired).toEqual([]);
    expect(clock.pendingSleeps).toBe(0);
  });

  it("hands a timer's error to onError and goes on", async () => {
    const clock = createManualClock();
    const errors: unknown[] = [];
    const timers = createTimers(wrap(clock), (err) => errors.push(err));
    const fired: string[] = [];
    timers.after(10, () => {
      throw new Error('boom');
    });
    timers.after(20, () => fired.push('next'));
    await clock.tick(30);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom']);
    expect(fired).toEqual(['next']);
  });
});
