import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCallService, type CallService } from '../../src/calls/index.ts';
import { silentLogger, systemClock } from '../../src/core/index.ts';
import { createBuiltinLLM, createModelRouter } from '../../src/providers/index.ts';
import { createAgentRuntime, type AgentRuntime } from '../../src/runtime/index.ts';
import type { Store } from '../../src/store/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createSimCarrier } from '../../src/telephony/index.ts';
import { createScriptedCallee } from '../../src/telephony/testing/index.ts';

// A call that has hung up reads as its final status at once, with its transcript, duration and
// quality, and its slot is free; the analysis (seconds with a hosted model) fills in later, and
// only then is the post-call webhook queued with it.

for (const target of storeTargets()) {
  describe(`a call at hang-up [${target.dialect}]`, () => {
    let store: Store;
    let service: CallService;
    let releaseAnalysis: () => void = () => undefined;

    /** A call service of node `n1` whose analyses wait for `releaseAnalysis`. */
    function serviceOfN1() {
      const runtime = createAgentRuntime({
        repos: store,
        models: createModelRouter({ platform: createBuiltinLLM() }),
        clock: systemClock,
        http: async () => {
          throw new Error('no network');
        },
      });
      let open = () => undefined as void;
      const analysisGate = new Promise<void>((resolve) => (open = resolve));
      const previous = releaseAnalysis;
      releaseAnalysis = () => {
        previous();
        open();
      };
      const gated: AgentRuntime = {
        ...runtime,
        async analyze(conversation, ending) {
          await analysisGate;
          return runtime.analyze(conversation, ending);
        },
      };
      return createCallService({
        store,
        runtime: gated,
        carriers: {
          sim: createSimCarrier({
            callee: () => createScriptedCallee([{ text: 'No thanks, bye.', hangUp: true }]),
            speed: 0,
          }),
        },
        speech: { missing: 'text legs only here' },
        logger: silentLogger(),
        node: 'n1',
      });
    }

    beforeEach(async () => {
      store = await target.open(systemClock);
      service = serviceOfN1();
    });
    afterEach(async () => {
      releaseAnalysis();
      await service.stop(0);
      await store.close();
    });

    async function placeOne() {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 1 });
      const agent = await store.agents.create(ws.id, {
        type: 'voice',
        name: 'Solar',
        spec: { agent: { prompt: 'You sell solar.', greeting_message: 'Hi, this is Sam.' } },
      });
      const { call } = await service.place(ws, {
        agent,
        from: '+14155550100',
        provider: 'sim',
        to: '+14155551234',
        leadName: 'Ann',
        variables: {},
        webhookUrl: 'https://example.com/hook',
      });
      return { ws, call };
    }

    it('is final before the analysis, which fills in with the webhook', async () => {
      const { ws, call } = await placeOne();

      await expect.poll(async () => (await store.calls.get(ws.id, call.id))?.status).toBe('completed');
      const hungUp = await store.calls.get(ws.id, call.id);
      expect(hungUp).toMatchObject({
        endCallReason: 'human_goodbye',
        holdsSlot: false,
        analysis: null,
        afterCallPending: true,
      });
      expect(hungUp?.transcript).toContain('human: No thanks, bye.');
      expect(hungUp?.endedAt).not.toBeNull();
      expect(hungUp?.quality).toMatchObject({ mode: 'text' });
      expect(await store.calls.busy(ws.id)).toBe(0);
      expect(await store.webhooks.listDeliveries(ws.id, 'pending')).toEqual([]);

      releaseAnalysis();
      await service.idle();
      const analyzed = await store.calls.get(ws.id, call.id);
      expect(analyzed?.status).toBe('completed');
      expect(analyzed?.analysis).toMatchObject({ persona: expect.any(String) });
      expect(analyzed?.afterCallPending).toBe(false);
      const queued = await store.webhooks.listDeliveries(ws.id, 'pending');
      expect(queued.map((d) => d.callId)).toEqual([call.id]);
    });

    it('a node that restarts before the analysis sends the webhook without it, once', async () => {
      const { ws, call } = await placeOne();
      await expect.poll(async () => (await store.calls.get(ws.id, call.id))?.afterCallPending).toBe(true);

      // The same node starts again (the first process is gone, its analysis never came).
      const restarted = serviceOfN1();
      await restarted.start();
      const recovered = await store.calls.get(ws.id, call.id);
      expect(recovered).toMatchObject({
        status: 'completed',
        endCallReason: 'human_goodbye',
        analysis: null,
        afterCallPending: false,
      });
      expect(recovered?.transcript).toContain('human: No thanks, bye.');
      const queued = await store.webhooks.listDeliveries(ws.id, 'pending');
      expect(queued.map((d) => d.callId)).toEqual([call.id]);

      // Had the first process only been slow, its late last move finds the call finished.
      releaseAnalysis();
      await service.idle();
      expect((await store.calls.get(ws.id, call.id))?.analysis).toBeNull();
      expect((await store.webhooks.listDeliveries(ws.id, 'pending')).length).toBe(1);
      await restarted.stop(0);
    });
  });
}
