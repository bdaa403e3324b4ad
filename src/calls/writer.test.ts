import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, silentLogger } from '../core/index.ts';
import type { Batch, Call, Store, Workspace } from '../store/index.ts';
import { storeTargets } from '../store/testing/index.ts';
import { createCallWriter } from './writer.ts';

// Group commit of call moves, on both stores: moves requested while a transaction commits share
// the next one, each keeps its own compare and set, the effects of last moves are summed per
// hot row, and one bad move does not fail the others.

for (const target of storeTargets()) {
  describe(`call writer [${target.dialect}]`, () => {
    let store: Store;
    let workspace: Workspace;
    let batch: Batch;
    let transactions: number[];

    beforeEach(async () => {
      store = await target.open(createManualClock());
      workspace = await store.workspaces.create({ name: 'a', plan: 'enterprise', maxConcurrentCalls: 10 });
      batch = await store.batches.create(
        workspace.id,
        {
          agentId: 'agent-1',
          name: 'b',
          fromPhoneNumber: '+14155550100',
          fromProvider: 'sim',
          triggerAt: null,
          reservedConcurrency: 0,
          callTimeWindow: null,
          lifetimeMs: 86_400_000,
        },
        Array.from({ length: 6 }, (_, i) => ({ toPhoneNumber: `+1415555020${i}` })),
      );
      // Dispatch every recipient so the batch completes when all six calls have ended.
      const tasks = await store.batches.claim(batch.id, 6, 'n1');
      await store.transaction((r) =>
        r.batches.dispatchMany(
          batch.id,
          tasks.map((t, i) => ({ taskId: t.id, callId: `call-${i}` })),
        ),
      );
      // Count the writer's transactions.
      transactions = [];
      const transaction = store.transaction.bind(store);
      store.transaction = ((fn: Parameters<Store['transaction']>[0]) => {
        transactions.push(Date.now());
        return transaction(fn);
      }) as Store['transaction'];
    });
    afterEach(() => store.close());

    const ringing = (i: number, webhookUrl: string | null = null): Promise<Call> =>
      store.calls.create(workspace.id, {
        id: `call-${i}`,
        agentId: 'agent-1',
        type: 'outbound',
        status: 'ringing',
        phoneFrom: '+14155550100',
        phoneTo: `+1415555020${i}`,
        leadName: 'Ann',
        holdsSlot: true,
        batchCallId: batch.id,
        webhookUrl,
      });

    const ending = (call: Call, seconds: number) => ({
      workspace,
      callId: call.id,
      from: ['ringing', 'in-progress'],
      patch: { status: 'completed', holdsSlot: false, endedAt: 1, durationSeconds: seconds },
    });

    it('commits the endings that arrive during a commit together, with their effects summed', async () => {
      const calls = await Promise.all(
        [0, 1, 2, 3, 4, 5].map((i) => ringing(i, i % 2 ? 'https://h.example/x' : null)),
      );
      const writer = createCallWriter({ store, logger: silentLogger() });
      const ended = await Promise.all(calls.map((c, i) => writer.end(ending(c, i + 1))));
      // The first commits alone; the five that came meanwhile share the next transaction.
      expect(transactions).toHaveLength(2);
      expect(ended.map((c) => c?.status)).toEqual(Array(6).fill('completed'));
      expect(await store.calls.busy(workspace.id)).toBe(0);
      expect((await store.workspaces.get(workspace.id))?.usageSeconds).toBe(1 + 2 + 3 + 4 + 5 + 6);
      expect(await store.batches.get(workspace.id, batch.id)).toMatchObject({
        callsEndedCount: 6,
        status: 'completed',
      });
      const hooks = await store.webhooks.listDeliveries(workspace.id);
      expect(hooks.map((h) => h.callId).sort()).toEqual(['call-1', 'call-3', 'call-5']);
    });

    it('answers null for a call already moved, and counts nothing for it', async () => {
      const [a, b] = await Promise.all([ringing(0), ringing(1)]);
      await store.calls.update(workspace.id, b!.id, ['ringing'], { status: 'canceled', holdsSlot: false });
      const writer = createCallWriter({ store, logger: silentLogger() });
      const [first, second] = await Promise.all([writer.end(ending(a!, 7)), writer.end(ending(b!, 9))]);
      expect(first?.status).toBe('completed');
      expect(second).toBeNull();
      expect((await store.workspaces.get(workspace.id))?.usageSeconds).toBe(7);
      expect((await store.batches.get(workspace.id, batch.id))?.callsEndedCount).toBe(1);
    });

    it('forgets the turns kept during a call with its last move, not those of a call it did not end', async () => {
      const [a, b] = await Promise.all([ringing(0), ringing(1)]);
      await store.calls.update(workspace.id, b!.id, ['ringing'], { status: 'canceled', holdsSlot: false });
      const c = await ringing(2);
      const kept = (callId: string) => ({
        workspaceId: workspace.id,
        callId,
        from: 0,
        turns: [{ speaker: 'user' as const, text: 'Hi.', at: 1, interrupted: false }],
      });
      await store.callTurns.write([kept(a!.id), kept(b!.id), kept(c.id)]);
      const writer = createCallWriter({ store, logger: silentLogger() });
      await Promise.all([writer.end(ending(a!, 1)), writer.end(ending(b!, 1))]);
      expect(await store.callTurns.of(workspace.id, a!.id)).toEqual([]);
      // b was already final (someone else ended it); c still runs: theirs stay.
      expect(await store.callTurns.of(workspace.id, b!.id)).toHaveLength(1);
      expect(await store.callTurns.of(workspace.id, c.id)).toHaveLength(1);
    });

    it('moves without effects (answered) share the group, and a move follows its call’s earlier one', async () => {
      const a = await ringing(0);
      const writer = createCallWriter({ store, logger: silentLogger() });
      const [answered, done] = await Promise.all([
        writer.move({
          workspaceId: workspace.id,
          id: a.id,
          from: ['ringing'],
          patch: { status: 'in-progress', answeredAt: 5 },
        }),
        writer.end({ ...ending(a, 3), from: ['in-progress'] }),
      ]);
      expect(answered?.status).toBe('in-progress');
      expect(done).toMatchObject({ status: 'completed', answeredAt: 5 });
      expect((await store.batches.get(workspace.id, batch.id))?.callsEndedCount).toBe(1);
    });

    it('commits moves without effects without a transaction, each its own compare and set', async () => {
      const [a, b] = await Promise.all([ringing(0), ringing(1)]);
      await store.calls.update(workspace.id, b!.id, ['ringing'], { status: 'canceled', holdsSlot: false });
      const writer = createCallWriter({ store, logger: silentLogger() });
      const release = (id: string) =>
        writer.move({
          workspaceId: workspace.id,
          id,
          from: ['ringing'],
          patch: { holdsSlot: false, endedAt: 9 },
        });
      const [first, second] = await Promise.all([release(a!.id), release(b!.id)]);
      expect(first).toMatchObject({ status: 'ringing', holdsSlot: false, endedAt: 9 });
      expect(second).toBeNull();
      expect(transactions).toEqual([]);
      expect(await store.calls.busy(workspace.id)).toBe(0);
    });

    it('when a group fails, commits its moves one by one, so a move that fails again fails alone', async () => {
      const calls = await Promise.all([0, 1, 2].map((i) => ringing(i)));
      const transaction = store.transaction;
      // The 2nd transaction (the group of two after the first commit) fails, as a deadlock would,
      // and so does the 4th (the second of its moves, tried alone).
      let n = 0;
      store.transaction = ((fn: Parameters<Store['transaction']>[0]) => {
        n += 1;
        if (n === 2 || n === 4) return Promise.reject(new Error(`deadlock detected (${n})`));
        return transaction(fn);
      }) as Store['transaction'];
      const writer = createCallWriter({ store, logger: silentLogger() });
      const ended = await Promise.allSettled([
        writer.end(ending(calls[0]!, 1)),
        writer.end(ending(calls[1]!, 1)),
        writer.end(ending(calls[2]!, 1)),
      ]);
      expect(ended.map((r) => (r.status === 'fulfilled' ? r.value?.id : String(r.reason)))).toEqual([
        calls[0]!.id,
        calls[1]!.id,
        'Error: deadlock detected (4)',
      ]);
      expect(n).toBe(4);
      expect((await store.calls.get(workspace.id, calls[2]!.id))?.status).toBe('ringing');
      expect((await store.batches.get(workspace.id, batch.id))?.callsEndedCount).toBe(2);
    });
  });
}
