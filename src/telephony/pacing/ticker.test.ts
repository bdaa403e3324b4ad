import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/index.ts';
import { createManualClock } from '../../core/index.ts';
import { FRAME_MS } from '../../media/index.ts';
import { createFrameTicker } from './ticker.ts';

/**
 * A clock whose time moves only by the work it is told about: a sleep ends after the event loop
 * turns, at its due time; `spend` is a beat's work taking clock time.
 */
function workClock() {
  let now = 0;
  const clock: Clock = {
    now: () => now,
    sleep: (ms) =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          now += Math.max(0, ms);
          resolve();
        }),
      ),
  };
  return { clock, spend: (ms: number) => (now += ms) };
}

describe('frame ticker', () => {
  it('lets the event loop turn during a long catch-up, and still plays every beat on its grid', async () => {
    const { clock, spend } = workClock();
    const ticker = createFrameTicker(clock);
    const sent: number[] = [];
    let turnSeenAfterBeats = -1;
    const done = new Promise<void>((resolve) => {
      ticker.add({
        send(at) {
          sent.push(at);
          if (sent.length === 1) {
            // A stall of five beats; what the event loop has queued meanwhile must not wait
            // for the whole catch-up.
            spend(5 * FRAME_MS);
            setImmediate(() => (turnSeenAfterBeats = sent.length));
          } else {
            spend(FRAME_MS / 2); // each catch-up beat costs half a beat: it catches up slowly
          }
          if (sent.length === 20) {
            ticker.delete(this);
            resolve();
          }
        },
        deliver() {},
      });
    });
    await done;
    expect(turnSeenAfterBeats).toBe(1);
    expect(sent).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * FRAME_MS));
  });

  it('marks the beats it catches up after a stall, and keeps the grid', async () => {
    const clock = createManualClock(0);
    const ticker = createFrameTicker(clock);
    const delivered: [number, boolean][] = [];
    const member = { send() {}, deliver: (at: number, caughtUp: boolean) => delivered.push([at, caughtUp]) };
    ticker.add(member);
    await clock.tick(FRAME_MS);
    clock.set(4 * FRAME_MS); // the beat at 40 ms wakes at 80 ms: 60 and 80 are caught up
    await clock.tick(FRAME_MS);
    ticker.delete(member);
    expect(delivered).toEqual([
      [20, false],
      [40, false],
      [60, true],
      [80, true],
      [100, false],
    ]);
  });
});
