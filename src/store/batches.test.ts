import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { DispatchRefused, type Store } from './index.ts';
import { storeTargets } from './testing/index.ts';

// The batches repository on both stores: dense positions across appends, claims that never hand
// a recipient out twice (concurrent claims included), dispatch refusing paused and canceled
// batches, counters that match the recipients, and claims returned after a restart.

for (const target of storeTargets()) {
  describe(`batches repository [${target.dialect}]`, () => {
    let store: Store;
    const clock = createManualClock();
    beforeEach(async () => {
      store = await target.open(clock);
    });
    afterEach(() => store.close());

    const tasks = (n: number, from = 0) =>
      Array.from({ length: n }, (_, i) => ({ toPhoneNumber: `+1415555${String(1000 + from + i)}` }));
    const newBatch = async (n: number) => {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 10 });
      const batch = await store.batches.create(
        ws.id,
        {
          agentId: 'a',
          name: 'b',
          fromPhoneNumber: '+14155550100',
          fromProvider: 'sim',
          triggerAt: null,
          reservedConcurrency: 0,
          callTimeWindow: null,
          lifetimeMs: 1000,
        },
        tasks(n),
      );
      return { ws, batch };
    };

    it('numbers recipients densely across appends, in order', async () => {
      const { ws, batch } = await newBatch(3000);
      const appended = await store.batches.append(ws.id, batch.id, tasks(2, 3000));
      expect(appended).toMatchObject({ ok: true, batch: { totalTaskCount: 3002, pendingCount: 3002 } });
      const page = await store.batches.listTasks(batch.id, { limit: 4, offset: 2999 });
      expect(page.map((t) => [t.position, t.toPhoneNumber])).toEqual([
        [2999, '+14155553999'],
        [3000, '+14155554000'],
        [3001, '+14155554001'],
      ]);
      expect(batch.expiresAt - batch.createdAt).toBe(1000);
    });

    it("lists a status's recipients page by page, in position order", async () => {
      const { batch } = await newBatch(30);
      const claimed = await store.batches.claim(batch.id, 10, 'n1');
      for (const task of claimed.filter((t) => t.position % 2 === 0)) {
        await store.transaction((r) => r.batches.dispatch(task.id, `call-${task.position}`));
      }
      const positions = async (status: 'queued' | 'dispatched' | 'claimed', limit: number, offset: number) =>
        (await store.batches.listTasks(batch.id, { status, limit, offset })).map((t) => t.position);
      const queued: number[] = [];
      for (let offset = 0; offset < 24; offset += 4) queued.push(...(await positions('queued', 4, offset)));
      expect(queued).toEqual(Array.from({ length: 20 }, (_, i) => 10 + i));
      expect(await positions('dispatched', 2, 1)).toEqual([2, 4]);
      expect(await positions('claimed', 10, 3)).toEqual([7, 9]);
      expect(await positions('queued', 5, 20)).toEqual([]);
    });

    it('concurrent claims never hand out a recipient twice', async () => {
      const { batch } = await newBatch(200);
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.batches.claim(batch.id, 30, `node-${i}`)),
      );
      const ids = claims.flat().map((t) => t.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(200);
      expect(await store.batches.claim(batch.id, 10, 'late')).toEqual([]);
    });

    it('dispatch refuses a paused or canceled batch; the claims then go back or are canceled', async () => {
      const { ws, batch } = await newBatch(4);
      const [a, b, c, d] = await store.batches.claim(batch.id, 4, 'n1');
      await store.transaction((r) => r.batches.dispatch(a!.id, 'call-a'));
      await store.batches.move(ws.id, batch.id, ['in_progress'], 'paused');
      await expect(store.transaction((r) => r.batches.dispatch(b!.id, 'call-b'))).rejects.toThrow(
        DispatchRefused,
      );
      // Only the claiming node's claims are returned.
      expect(await store.batches.returnClaims(ws.id, batch.id, [b!.id], 'n2')).toBe(0);
      expect(await store.batches.returnClaims(ws.id, batch.id, [b!.id], 'n1')).toBe(1);
      await store.batches.move(ws.id, batch.id, ['paused'], 'canceled');
      await expect(store.transaction((r) => r.batches.dispatch(c!.id, 'call-c'))).rejects.toThrow(
        DispatchRefused,
      );
      expect(await store.batches.returnClaims(ws.id, batch.id, [c!.id, d!.id], 'n1')).toBe(2);
      const all = await store.batches.listTasks(batch.id, { limit: 10, offset: 0 });
      // b went back to the queue while paused, and was canceled with it.
      expect(all.map((t) => [t.status, t.callId])).toEqual([
        ['dispatched', 'call-a'],
        ['canceled', null],
        ['canceled', null],
        ['canceled', null],
      ]);
      expect(await store.batches.get(ws.id, batch.id)).toMatchObject({
        status: 'canceled',
        pendingCount: 0,
        dispatchedCount: 1,
        canceledCount: 3,
      });
    });

    it('pausing returns the standby calls (waiting, never dialed) to the queue; canceling cancels them', async () => {
      const { ws, batch } = await newBatch(4);
      const claimed = await store.batches.claim(batch.id, 4, 'n1');
      // Two calls admitted (ringing), two standby calls waiting for a slot, one dispatch.
      await store.transaction(async (r) => {
        await r.calls.createAdmitted(
          ws.id,
          claimed.map((t) => ({
            id: `call-${t.position}`,
            agentId: 'a',
            type: 'outbound' as const,
            status: 'pending',
            phoneFrom: '+14155550100',
            phoneTo: t.toPhoneNumber,
            leadName: '',
            batchCallId: batch.id,
            batchTaskId: t.id,
          })),
          2,
          'n1',
        );
        await r.batches.dispatchMany(
          batch.id,
          claimed.map((t) => ({ taskId: t.id, callId: `call-${t.position}` })),
        );
      });
      await store.batches.move(ws.id, batch.id, ['in_progress'], 'paused');
      const tasksNow = async () =>
        (await store.batches.listTasks(batch.id, { limit: 10, offset: 0 })).map((t) => [t.status, t.callId]);
      expect(await tasksNow()).toEqual([
        ['dispatched', 'call-0'],
        ['dispatched', 'call-1'],
        ['queued', null],
        ['queued', null],
      ]);
      expect(await store.calls.get(ws.id, 'call-2')).toBeNull();
      expect((await store.calls.get(ws.id, 'call-0'))?.status).toBe('ringing');
      expect(await store.batches.get(ws.id, batch.id)).toMatchObject({ pendingCount: 2, dispatchedCount: 2 });

      // Resumed and dialed again: the new standby call is canceled with the batch.
      await store.batches.move(ws.id, batch.id, ['paused'], 'in_progress');
      const [again] = await store.batches.claim(batch.id, 1, 'n1');
      await store.transaction(async (r) => {
        await r.calls.create(ws.id, {
          id: 'call-again',
          agentId: 'a',
          type: 'outbound',
          status: 'pending',
          phoneFrom: '+14155550100',
          phoneTo: again!.toPhoneNumber,
          leadName: '',
          batchCallId: batch.id,
          batchTaskId: again!.id,
        });
        await r.batches.dispatchMany(batch.id, [{ taskId: again!.id, callId: 'call-again' }]);
      });
      await store.batches.move(ws.id, batch.id, ['in_progress'], 'canceled');
      expect(await tasksNow()).toEqual([
        ['dispatched', 'call-0'],
        ['dispatched', 'call-1'],
        ['canceled', null],
        ['canceled', null],
      ]);
      expect(await store.calls.get(ws.id, 'call-again')).toBeNull();
      expect(await store.batches.get(ws.id, batch.id)).toMatchObject({
        status: 'canceled',
        pendingCount: 0,
        dispatchedCount: 2,
        canceledCount: 2,
      });
    });

    it('dispatch refuses recipients that are no longer claimed, and changes nothing', async () => {
      const { ws, batch } = await newBatch(2);
      const [a, b] = await store.batches.claim(batch.id, 2, 'n1');
      // The sweep took b back (its claim looked abandoned).
      clock.advance(10_000);
      expect(await store.batches.releaseClaims({ claimedBefore: clock.now() })).toBe(2);
      const [again] = await store.batches.claim(batch.id, 1, 'n2');
      expect(again?.id).toBe(a!.id);
      await expect(
        store.transaction((r) =>
          r.batches.dispatchMany(batch.id, [
            { taskId: a!.id, callId: 'x' },
            { taskId: b!.id, callId: 'y' },
          ]),
        ),
      ).rejects.toThrow('no longer claimed');
      const all = await store.batches.listTasks(batch.id, { limit: 10, offset: 0 });
      expect(all.map((t) => [t.status, t.callId])).toEqual([
        ['claimed', null],
        ['queued', null],
      ]);
      expect(await store.batches.get(ws.id, batch.id)).toMatchObject({ pendingCount: 2, dispatchedCount: 0 });
    });

    it('returns a restarted node’s claims (without calls) to the queue, and stale ones of any node', async () => {
      const { ws, batch } = await newBatch(4);
      await store.batches.claim(batch.id, 2, 'n1');
      const [third] = await store.batches.claim(batch.id, 1, 'n2');
      await store.transaction((r) => r.batches.dispatch(third!.id, 'call-3'));
      await store.batches.claim(batch.id, 1, 'n2');
      expect(await store.batches.releaseClaims({ node: 'n1' })).toBe(2);
      clock.advance(10_000);
      expect(await store.batches.releaseClaims({ claimedBefore: clock.now() - 5_000 })).toBe(1);
      const statuses = (await store.batches.listTasks(batch.id, { limit: 10, offset: 0 })).map(
        (t) => t.status,
      );
      expect(statuses).toEqual(['queued', 'queued', 'dispatched', 'queued']);
      expect((await store.batches.get(ws.id, batch.id))?.pendingCount).toBe(3);
    });

    it('completes when nothing is pending and every dispatched call ended', async () => {
      const { ws, batch } = await newBatch(2);
      const [a, b] = await store.batches.claim(batch.id, 2, 'n1');
      await store.transaction((r) => r.batches.dispatch(a!.id, 'call-a'));
      await store.batches.fail(b!.id, 'not dialable');
      expect((await store.batches.get(ws.id, batch.id))?.status).toBe('in_progress');
      await store.batches.callEnded(batch.id);
      expect(await store.batches.get(ws.id, batch.id)).toMatchObject({ status: 'completed', failedCount: 1 });
    });
  });
}
