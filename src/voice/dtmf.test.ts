import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { createDtmfCollector, dtmfTurnText } from './dtmf.ts';
import { createTimers } from './timers.ts';

function collector() {
  const clock = createManualClock();
  const entries: string[][] = [];
  const timers = createTimers(clock, (err) => {
    throw err;
  });
  const keys = createDtmfCollector({ clock, timers, onEntry: (d) => entries.push(d) });
  return { clock, entries, keys, timers };
}

describe('dtmf collector', () => {
  it('ends an entry on # (not included) or after 1.5 s without a key', async () => {
    const { clock, entries, keys } = collector();
    keys.press('1');
    await clock.tick(1_000);
    keys.press('2');
    keys.press('#');
    expect(entries).toEqual([['1', '2']]);
    keys.press('4');
    await clock.tick(1_000);
    keys.press('2');
    await clock.tick(1_400);
    expect(entries).toHaveLength(1);
    await clock.tick(100);
    expect(entries).toEqual([
      ['1', '2'],
      ['4', '2'],
    ]);
    expect(clock.pendingSleeps).toBe(0);
  });

  it('keeps # when it is the only key, and ignores what is not a key', () => {
    const { entries, keys } = collector();
    keys.press('x');
    keys.press('#');
    expect(entries).toEqual([['#']]);
  });

  it('keeps at most 32 keys of a flood', async () => {
    const { clock, entries, keys } = collector();
    for (let i = 0; i < 1_000; i += 1) keys.press(String(i % 10));
    await clock.tick(1_500);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toHaveLength(32);
  });

  it('words the turn for the model', () => {
    expect(dtmfTurnText(['1', '2', '3'])).toBe('[The caller pressed the keys: 1 2 3]');
  });
});
