import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, silentLogger } from '../core/index.ts';
import { createAgentRuntime } from '../runtime/index.ts';
import { createBuiltinLLM, createModelRouter } from '../providers/index.ts';
import type { Store } from '../store/index.ts';
import { storeTargets } from '../store/testing/index.ts';
import { createCallService } from './service.ts';

// A process that stopped in the middle of calls: at its next start, the calls it owned (ringing
// or in progress) are failed with an explicit reason, their slots freed and their webhooks
// queued; other nodes' calls and waiting calls are left alone.

for (const target of storeTargets()) {
  describe(`call recovery [${target.dialect}]`, () => {
    let store: Store;
    const clock = createManualClock();
    beforeEach(async () => {
      store = await target.open(clock);
    });
    afterEach(() => store.close());

    it('fails the interrupted calls of this node only', async () => {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 5 });
      const base = { agentId: 'a1', type: 'outbound' as const, phoneFrom: '+14155550100', leadName: 'Ann' };
      const mine = await store.calls.create(ws.id, {
        ...base,
        status: 'pending',
        phoneTo: '+14155551001',
        webhookUrl: 'https://example.com/hook',
      });
      const theirs = await store.calls.create(ws.id, { ...base, status: 'pending', phoneTo: '+14155551002' });
      await store.calls.admit(ws.id, 5, 'node-a', 1);
      await store.calls.admit(ws.id, 5, 'node-b', 1);
      await store.calls.update(ws.id, mine.id, ['ringing'], { status: 'in-progress' });
      expect(await store.calls.busy(ws.id)).toBe(2);

      const service = createCallService({
        store,
        runtime: createAgentRuntime({
          repos: store,
          models: createModelRouter({ platform: createBuiltinLLM() }),
          clock,
          http: async () => {
            throw new Error('no network');
          },
        }),
        carriers: {},
        clock,
        logger: silentLogger(),
        node: 'node-a',
      });
      const stop = new AbortController();
      await service.start(stop.signal);
      stop.abort();

      const failed = await store.calls.get(ws.id, mine.id);
      expect(failed).toMatchObject({ status: 'failed', endCallReason: 'undefined', holdsSlot: false });
      expect(failed?.errorMessage).toMatch(/interrupted/);
      expect(await store.calls.get(ws.id, theirs.id)).toMatchObject({ status: 'ringing', node: 'node-b' });
      expect(await store.calls.busy(ws.id)).toBe(1);
      const queued = await store.webhooks.listDeliveries(ws.id, 'pending');
      expect(queued.map((d) => d.callId)).toEqual([mine.id]);
    });
  });
}
