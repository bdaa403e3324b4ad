import { describe, expect, it } from 'vitest';
import { createManualClock } from './clock.ts';
import { createLoadGate } from './load-gate.ts';

describe('load gate', () => {
  it('saturates after windows in a row over the bound, and clears only well below it', async () => {
    const clock = createManualClock();
    const lags = [10, 60, 10, 60, 70, 40, 30, 20, 80, 90];
    const controller = new AbortController();
    const gate = createLoadGate({
      clock,
      maxLagMs: 50,
      sample: () => lags.shift() ?? 0,
      signal: controller.signal,
    });
    const seen: [number, boolean][] = [];
    for (let i = 0; i < 10; i += 1) {
      await clock.tick(1000);
      seen.push([gate.lagMs, gate.saturated]);
    }
    expect(seen).toEqual([
      [10, false],
      [60, false],
      [10, false],
      [60, false],
      [70, true],
      [40, true],
      [30, true],
      [20, false],
      [80, false],
      [90, true],
    ]);
    controller.abort();
    await clock.tick(1000);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('saturates on a busy event loop before it is late, and clears only well below the bound', async () => {
    const clock = createManualClock();
    const busy = [0.5, 0.85, 0.7, 0.82, 0.9, 0.78, 0.72, 0.69, 0.9];
    const controller = new AbortController();
    const gate = createLoadGate({
      clock,
      maxLagMs: 100,
      maxUtilization: 0.8,
      sample: () => 5,
      sampleUtilization: () => busy.shift() ?? 0,
      signal: controller.signal,
    });
    const seen: [number, boolean][] = [];
    for (let i = 0; i < 9; i += 1) {
      await clock.tick(1000);
      seen.push([gate.utilization, gate.saturated]);
    }
    expect(seen).toEqual([
      [0.5, false],
      [0.85, false],
      [0.7, false],
      [0.82, false],
      [0.9, true],
      [0.78, true],
      [0.72, true],
      [0.69, false],
      [0.9, false],
    ]);
    controller.abort();
    await clock.tick(1000);
  });

  it('with the utilization bound off, a busy loop alone neither saturates nor holds it saturated', async () => {
    const clock = createManualClock();
    const lags = [200, 200, 10];
    const controller = new AbortController();
    const gate = createLoadGate({
      clock,
      maxLagMs: 100,
      sample: () => lags.shift() ?? 0,
      sampleUtilization: () => 1,
      signal: controller.signal,
    });
    const seen: boolean[] = [];
    for (let i = 0; i < 4; i += 1) {
      await clock.tick(1000);
      seen.push(gate.saturated);
    }
    expect(seen).toEqual([false, true, false, false]);
    controller.abort();
    await clock.tick(1000);
  });

  it('lets a window take at most its allowance of new calls, and none while saturated', async () => {
    const clock = createManualClock();
    const lags = [0, 80, 80, 10];
    const controller = new AbortController();
    const gate = createLoadGate({
      clock,
      maxLagMs: 50,
      claimsPerWindow: 5,
      sample: () => lags.shift() ?? 0,
      signal: controller.signal,
    });
    expect(gate.allowance()).toBe(5);
    gate.claimed(3);
    expect(gate.allowance()).toBe(2);
    gate.claimed(2);
    expect(gate.allowance()).toBe(0);
    // A new window, a new allowance (the lag is low).
    await clock.tick(1000);
    expect(gate.allowance()).toBe(5);
    gate.claimed(1);
    await clock.tick(1000);
    expect([gate.saturated, gate.allowance()]).toEqual([false, 5]);
    await clock.tick(1000);
    expect([gate.saturated, gate.allowance()]).toEqual([true, 0]);
    await clock.tick(1000);
    expect([gate.saturated, gate.allowance()]).toEqual([false, 5]);
    controller.abort();
    await clock.tick(1000);
  });

  it('takes any number of calls with no allowance set to pace them', async () => {
    const controller = new AbortController();
    const gate = createLoadGate({
      clock: createManualClock(),
      claimsPerWindow: Infinity,
      sample: () => 0,
      signal: controller.signal,
    });
    gate.claimed(10_000);
    expect(gate.allowance()).toBe(Infinity);
    controller.abort();
  });

  it("measures this process's own event loop by default", async () => {
    const clock = createManualClock();
    const controller = new AbortController();
    const gate = createLoadGate({ clock, maxLagMs: 5, windowsOver: 1, signal: controller.signal });
    // Lets the histogram sample, blocks the loop well past the bound, then lets it sample again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const until = performance.now() + 120;
    while (performance.now() < until);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await clock.tick(1000);
    expect(gate.lagMs).toBeGreaterThan(5);
    expect(gate.saturated).toBe(true);
    controller.abort();
  });
});
