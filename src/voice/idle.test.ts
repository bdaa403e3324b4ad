import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { createIdleWatch } from './idle.ts';
import { createTimers } from './timers.ts';

function watch(reminderMs: number | null, allowedMs: number) {
  const clock = createManualClock();
  const events: string[] = [];
  const timers = createTimers(clock, (err) => {
    throw err;
  });
  const start = clock.now();
  const idle = createIdleWatch({
    clock,
    timers,
    allowedMs,
    reminderMs,
    onReminder: () => events.push(`remind@${clock.now() - start}`),
    onTimeout: () => events.push(`end@${clock.now() - start}`),
  });
  return { clock, events, idle };
}

describe('idle watch', () => {
  it('reminds after the reminder time, then ends after the allowed time in all', async () => {
    const { clock, events, idle } = watch(5_000, 12_000);
    idle.quiet();
    await clock.tick(5_000);
    expect(events).toEqual(['remind@5000']);
    idle.busy(); // the reminder is being said
    await clock.tick(1_000);
    idle.quiet();
    await clock.tick(10_000);
    // The next reminder (at 11 s) would come less than 2 s before the end (12 s): skipped.
    expect(events).toEqual(['remind@5000', 'end@12000']);
  });

  it('caller activity starts the silence over', async () => {
    const { clock, events, idle } = watch(null, 10_000);
    idle.quiet();
    await clock.tick(8_000);
    idle.activity();
    await clock.tick(5_000);
    idle.quiet();
    await clock.tick(9_000);
    expect(events).toEqual([]);
    await clock.tick(1_000);
    expect(events).toEqual(['end@23000']);
  });

  it('stays silent while stopped', async () => {
    const { clock, events, idle } = watch(1_000, 2_000);
    idle.quiet();
    idle.stop();
    await clock.tick(10_000);
    expect(events).toEqual([]);
    expect(clock.pendingSleeps).toBe(0);
  });
});
