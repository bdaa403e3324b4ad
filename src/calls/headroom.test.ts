import { describe, expect, it } from 'vitest';
import { createHeadroom } from './headroom.ts';

describe('the headroom (calls predicted to fit under the busy target)', () => {
  it('takes no more than the unknown budget, counting calls not loaded yet, until a cost is known', () => {
    const h = createHeadroom({ target: 0.6, unknownBudget: 100, minLoaded: 10 });
    expect(h.allowance({ loaded: 0, coming: 0, settling: 0, utilization: 0.01, window: 1 })).toBe(100);
    expect(h.allowance({ loaded: 0, coming: 70, settling: 0, utilization: 0.01, window: 2 })).toBe(30);
    // Nine loaded calls are too few to tell a call's cost from the loop's own work.
    expect(h.allowance({ loaded: 9, coming: 91, settling: 0, utilization: 0.05, window: 3 })).toBe(9);
    expect(h.perCall).toBeNull();
  });

  it('fits calls under the target from the measured cost of the loaded ones', () => {
    const h = createHeadroom({ target: 0.6, unknownBudget: 100, minLoaded: 10 });
    // 100 calls fill 20% of the loop: 0.2% each, so 300 fit under 60%.
    expect(h.allowance({ loaded: 100, coming: 0, settling: 0, utilization: 0.2, window: 1 })).toBe(200);
    expect(h.perCall).toBeCloseTo(0.002);
    // Calls taken and still ringing count at that cost before it shows.
    expect(h.allowance({ loaded: 100, coming: 150, settling: 0, utilization: 0.2, window: 1 })).toBe(50);
    expect(h.allowance({ loaded: 250, coming: 50, settling: 0, utilization: 0.5, window: 2 })).toBe(0);
  });

  it('raises the cost at once and lowers it slowly, once per window', () => {
    const h = createHeadroom({ target: 0.6, minLoaded: 10 });
    h.allowance({ loaded: 100, coming: 0, settling: 0, utilization: 0.2, window: 1 });
    h.allowance({ loaded: 100, coming: 0, settling: 0, utilization: 0.4, window: 2 });
    expect(h.perCall).toBeCloseTo(0.004);
    // A light window moves it a fifth of the way.
    h.allowance({ loaded: 100, coming: 0, settling: 0, utilization: 0.2, window: 3 });
    expect(h.perCall).toBeCloseTo(0.0036);
    // Asked again in the same window: no second step.
    h.allowance({ loaded: 100, coming: 0, settling: 0, utilization: 0.2, window: 3 });
    expect(h.perCall).toBeCloseTo(0.0036);
  });

  it('takes no measure from a window in which many calls were setting up', () => {
    const h = createHeadroom({ target: 0.6, minLoaded: 10 });
    h.allowance({ loaded: 100, coming: 0, settling: 0, utilization: 0.2, window: 1 });
    // 40 calls just answered load the loop as much as 100 talking ones: not a talking call's cost.
    h.allowance({ loaded: 100, coming: 40, settling: 40, utilization: 0.4, window: 2 });
    expect(h.perCall).toBeCloseTo(0.002);
    // A quarter of the loaded calls setting up is still a measure.
    h.allowance({ loaded: 100, coming: 25, settling: 25, utilization: 0.3, window: 3 });
    expect(h.perCall).toBeCloseTo(0.003);
  });

  it('keeps the cost once the calls end, and always lets enough calls in to measure again', () => {
    const h = createHeadroom({ target: 0.6, minLoaded: 10 });
    // Measured under heavy other work: 10 calls and a loop 90% busy (6 would fit under 60%).
    expect(h.allowance({ loaded: 10, coming: 0, settling: 0, utilization: 0.9, window: 1 })).toBe(0);
    expect(h.allowance({ loaded: 0, coming: 0, settling: 0, utilization: 0.05, window: 2 })).toBe(10);
  });

  it('limits nothing with a target of 0 or of the whole loop', () => {
    for (const target of [0, 1])
      expect(
        createHeadroom({ target }).allowance({
          loaded: 5000,
          coming: 0,
          settling: 0,
          utilization: 1,
          window: 1,
        }),
      ).toBe(Infinity);
  });
});
