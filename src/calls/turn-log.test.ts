import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, silentLogger, type ManualClock } from '../core/index.ts';
import type { CallTurnsWrite, Store, Workspace } from '../store/index.ts';
import { storeTargets } from '../store/testing/index.ts';
import { createTurnLog, type TurnLike } from './turn-log.ts';

// The turns of running calls, kept durable as they come: only completed turns, only what changed,
// several calls in one write, never awaited by the caller, retried after a failed write, and
// nothing written once a call's log is closed.

const target = storeTargets()[0]!;

describe('turn log', () => {
  let store: Store;
  let clock: ManualClock;
  let workspace: Workspace;
  let writes: CallTurnsWrite[][];
  let failNext: number;

  beforeEach(async () => {
    clock = createManualClock();
    store = await target.open(clock);
    workspace = await store.workspaces.create({ name: 'a', plan: 'enterprise', maxConcurrentCalls: 5 });
    writes = [];
    failNext = 0;
    const write = store.callTurns.write.bind(store.callTurns);
    store.callTurns.write = async (group) => {
      writes.push(structuredClone([...group]));
      if (failNext > 0) {
        failNext -= 1;
        throw new Error('the database is away');
      }
      return write(group);
    };
  });
  afterEach(() => store.close());

  const said = (speaker: TurnLike['speaker'], text: string, at: number): TurnLike => ({ speaker, text, at });
  const stored = (callId: string) => store.callTurns.of(workspace.id, callId);
  /** Until the log waits on the clock before retrying. */
  const backingOff = async () => {
    while (clock.pendingSleeps === 0) await new Promise((r) => setImmediate(r));
  };

  it('writes completed turns only, the changed ones, with other calls in one write, after update returns', async () => {
    const log = createTurnLog({ store, clock, logger: silentLogger() });
    const a = log.open(workspace.id, 'call-a');
    const b = log.open(workspace.id, 'call-b');
    const turns: TurnLike[] = [said('agent', 'Hello, this is Sam.', 1), said('user', 'Hi.', 2)];
    a.update(turns, 2);
    b.update([said('user', 'Hello?', 3)], 1);
    // Nothing is written on the caller's tick.
    expect(writes).toHaveLength(0);
    await log.flush();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.map((w) => w.callId)).toEqual(['call-a', 'call-b']);

    // The agent's reply is in the conversation but still playing: not kept yet.
    turns.push(said('agent', 'We install solar panels on homes.', 4));
    a.update(turns, 2);
    await log.flush();
    expect(writes).toHaveLength(1);
    // Cut short by the caller, then settled: only that turn is written.
    turns[2] = { ...said('agent', 'We install', 5), interrupted: true };
    a.update(turns, 3);
    await log.flush();
    expect(writes[1]).toEqual([
      {
        workspaceId: workspace.id,
        callId: 'call-a',
        from: 2,
        turns: [{ speaker: 'agent', text: 'We install', at: 5, interrupted: true }],
      },
    ]);
    expect((await stored('call-a')).map((t) => t.text)).toEqual(['Hello, this is Sam.', 'Hi.', 'We install']);
    expect(await stored('call-b')).toEqual([{ speaker: 'user', text: 'Hello?', at: 3, interrupted: false }]);

    // The same turns again: nothing to write.
    a.update(turns, 3);
    await log.flush();
    expect(writes).toHaveLength(2);
  });

  it('retries a failed write with the newest turns, backing off on the clock, and the call goes on', async () => {
    const log = createTurnLog({ store, clock, logger: silentLogger(), retryMs: 1_000 });
    const a = log.open(workspace.id, 'call-a');
    failNext = 2;
    a.update([said('user', 'Hi.', 1)], 1);
    await backingOff();
    expect(writes).toHaveLength(1);
    // Meanwhile the call went on.
    a.update([said('user', 'Hi.', 1), said('agent', 'Hello!', 2)], 2);
    expect(await stored('call-a')).toEqual([]);
    await clock.tick(1_000);
    await backingOff();
    expect(writes).toHaveLength(2);
    expect(await stored('call-a')).toEqual([]);
    // The second wait is twice as long: nothing more at 1 s.
    await clock.tick(1_000);
    expect(writes).toHaveLength(2);
    await clock.tick(1_000);
    await log.flush();
    expect(writes).toHaveLength(3);
    expect(writes[2]![0]!.turns.map((t) => t.text)).toEqual(['Hi.', 'Hello!']);
    expect((await stored('call-a')).map((t) => t.text)).toEqual(['Hi.', 'Hello!']);
  });

  it('writes nothing for a call once its log is closed, and waits for a write in flight', async () => {
    const log = createTurnLog({ store, clock, logger: silentLogger() });
    const a = log.open(workspace.id, 'call-a');
    const b = log.open(workspace.id, 'call-b');
    a.update([said('user', 'Hi.', 1)], 1);
    await log.flush();
    a.update([said('user', 'Hi.', 1), said('agent', 'Bye.', 2)], 2);
    b.update([said('user', 'Hello?', 3)], 1);
    await a.close();
    await log.flush();
    expect(writes.flat().map((w) => w.callId)).toEqual(['call-a', 'call-b']);
    expect(await stored('call-a')).toHaveLength(1);
    a.update([said('user', 'Hi.', 1), said('agent', 'Bye.', 2)], 2);
    await log.flush();
    expect(writes).toHaveLength(2);
  });
});
