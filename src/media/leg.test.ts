import { describe, expect, it } from 'vitest';
import { wrapLeg, type LinkStats, type MediaLeg } from './leg.ts';

// A wrapped leg (the recorder's) is still the leg it wraps for what it does not override,
// including the link statistics when the wrapped leg has them.

const STATS: LinkStats = {
  framesIn: 5,
  framesLost: 1,
  framesLate: 0,
  framesReordered: 0,
  framesRefused: 0,
  framesOut: 4,
  packetLoss: 1 / 6,
  jitterMs: 1.5,
};

function bareLeg(): MediaLeg {
  return {
    sid: 'leg',
    ended: new Promise(() => undefined),
    receive() {},
    play() {},
    clear() {},
    playedMs: 0,
    queuedMs: 0,
    drained: () => Promise.resolve(),
    sendDtmf: () => Promise.resolve(),
    transfer: () => Promise.resolve(),
    hangup: () => Promise.resolve(),
  };
}

describe('wrapLeg', () => {
  it("passes on the wrapped leg's link statistics, read live", () => {
    let framesIn = 5;
    const leg: MediaLeg = { ...bareLeg(), linkStats: () => ({ ...STATS, framesIn }) };
    const wrapped = wrapLeg(leg, { play() {} });
    expect(wrapped.linkStats?.()).toEqual(STATS);
    framesIn = 9;
    expect(wrapped.linkStats?.().framesIn).toBe(9);
  });

  it('has none when the wrapped leg has none', () => {
    const wrapped = wrapLeg(bareLeg(), {});
    expect(wrapped.linkStats).toBeUndefined();
  });
});
