import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, silentLogger } from '../../src/core/index.ts';
import { createAgentRuntime } from '../../src/runtime/index.ts';
import { createBuiltinLLM, createModelRouter } from '../../src/providers/index.ts';
import type { Store } from '../../src/store/index.ts';
import { createMemoryRecordings, storeTargets } from '../../src/store/testing/index.ts';
import { createCallService, type CallRecordings } from '../../src/calls/index.ts';
import { wavHeader } from '../../src/voice/index.ts';

// A process that stopped in the middle of calls: at its next start, the calls it owned (ringing
// or in progress) are failed with an explicit reason, their slots freed and their webhooks
// queued; other nodes' calls and waiting calls are left alone. A node that stays silent is taken
// over by the others after 30 s.

for (const target of storeTargets()) {
  describe(`call recovery [${target.dialect}]`, () => {
    let store: Store;
    const clock = createManualClock();
    beforeEach(async () => {
      store = await target.open(clock);
    });
    afterEach(() => store.close());

    const takenOver: string[] = [];
    const serviceFor = (node: string, recordings?: CallRecordings) =>
      createCallService({
        ...(recordings ? { recordings } : {}),
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
        speech: { missing: 'not in this test' },
        clock,
        logger: silentLogger(),
        node,
        onTakeover: async (dead) => {
          takenOver.push(dead);
          await store.batches.releaseClaims({ node: dead });
        },
      });

    it('takes over a node silent for 30 s: its calls fail, then the takeover is told', async () => {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 5 });
      const t0 = clock.now();
      await store.nodes.heartbeat('node-b');
      const call = await store.calls.create(ws.id, {
        agentId: 'a1',
        type: 'outbound',
        status: 'pending',
        phoneFrom: '+14155550100',
        phoneTo: '+14155551001',
        leadName: 'Ann',
      });
      await store.calls.admit(ws.id, 5, 'node-b', 1);
      const batch = await store.batches.create(
        ws.id,
        {
          agentId: 'a1',
          name: 'b',
          fromPhoneNumber: '+14155550100',
          fromProvider: 'sim',
          triggerAt: null,
          reservedConcurrency: 0,
          callTimeWindow: null,
          lifetimeMs: 86_400_000,
        },
        [{ toPhoneNumber: '+14155552001' }],
      );
      await store.batches.claim(batch.id, 1, 'node-b');

      const stop = new AbortController();
      await serviceFor('node-a').start(stop.signal);
      await clock.tick(20_000);
      expect((await store.calls.get(ws.id, call.id))?.status).toBe('ringing');
      // Time moves on (one more second per look) until the liveness check has run past 30 s.
      await expect
        .poll(async () => {
          await clock.tick(1_000);
          return (await store.calls.get(ws.id, call.id))?.status;
        })
        .toBe('failed');
      expect(clock.now() - t0).toBeGreaterThanOrEqual(30_000);
      expect((await store.calls.get(ws.id, call.id))?.errorMessage).toMatch(/interrupted/);
      expect(await store.calls.busy(ws.id)).toBe(0);
      const [task] = await store.batches.listTasks(batch.id, { limit: 1, offset: 0 });
      expect(task?.status).toBe('queued');
      expect(takenOver).toEqual(['node-b']);
      stop.abort();
    });

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

      const service = serviceFor('node-a');
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

    it('keeps what an interrupted call said and recorded: transcript, recording, duration, cut_short', async () => {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 5 });
      const base = { agentId: 'a1', type: 'outbound' as const, phoneFrom: '+14155550100', leadName: 'Ann' };
      const talking = await store.calls.create(ws.id, {
        ...base,
        status: 'pending',
        phoneTo: '+14155551001',
        webhookUrl: 'https://example.com/hook',
      });
      const ringing = await store.calls.create(ws.id, {
        ...base,
        status: 'pending',
        phoneTo: '+14155551002',
        webhookUrl: 'https://example.com/hook',
      });
      await store.calls.admit(ws.id, 5, 'node-a', 2);
      const answeredAt = clock.now();
      await store.calls.update(ws.id, talking.id, ['ringing'], { status: 'in-progress', answeredAt });
      // What the node kept while the call ran: two completed turns, and 3 s of audio (and a torn
      // last sample) on the recording it never finished.
      await store.callTurns.write([
        {
          workspaceId: ws.id,
          callId: talking.id,
          from: 0,
          turns: [
            {
              speaker: 'agent',
              text: 'Hello, this is Sam from Solar.',
              at: answeredAt + 2_000,
              interrupted: false,
            },
            { speaker: 'user', text: 'Hi Sam, tell me more.', at: answeredAt + 5_400, interrupted: false },
          ],
        },
      ]);
      const storage = createMemoryRecordings();
      const writer = await storage.create(ws.id, talking.id);
      await writer.write(wavHeader(0));
      await writer.write(new Uint8Array(3 * 16_000 * 4 + 2));
      clock.advance(60_000);

      const stop = new AbortController();
      await serviceFor('node-a', {
        storage,
        urlOf: (id) => `https://parley.test/v2/calls/${id}/recording`,
      }).start(stop.signal);
      stop.abort();

      const failed = await store.calls.get(ws.id, talking.id);
      expect(failed).toMatchObject({
        status: 'failed',
        transcript: 'bot: Hello, this is Sam from Solar.\nhuman: Hi Sam, tell me more.',
        // The last kept turn, 5.4 s after the answer (the recording holds 3 s).
        durationSeconds: 5,
        endedAt: answeredAt + 5_400,
      });
      expect(failed?.errorMessage).toMatch(/interrupted: the server running it stopped/);
      expect(failed?.settings).toMatchObject({
        cut_short: true,
        recording_url: `https://parley.test/v2/calls/${talking.id}/recording`,
      });
      const recording = await storage.open(ws.id, talking.id);
      expect(recording?.size).toBe(44 + 3 * 16_000 * 4);
      // A call that never answered has nothing to keep, but was cut short too.
      expect(await store.calls.get(ws.id, ringing.id)).toMatchObject({
        status: 'failed',
        transcript: '',
        durationSeconds: 0,
        settings: { cut_short: true },
      });
      // The post-call webhooks say so; the kept turns are gone with the last move.
      const queued = await store.webhooks.listDeliveries(ws.id, 'pending');
      const payloads = new Map(
        queued.map((d) => [d.callId, JSON.parse(d.body) as { call: Record<string, unknown> }]),
      );
      expect(payloads.get(talking.id)?.call).toMatchObject({
        cut_short: true,
        duration: 5,
        transcript: 'bot: Hello, this is Sam from Solar.\nhuman: Hi Sam, tell me more.',
        recording_url: `https://parley.test/v2/calls/${talking.id}/recording`,
      });
      expect(payloads.get(ringing.id)?.call).toMatchObject({ cut_short: true, duration: 0 });
      expect(await store.callTurns.of(ws.id, talking.id)).toEqual([]);
    });

    it('keeps, when it is back, the recordings of its calls another node finished without them', async () => {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 5 });
      const base = { agentId: 'a1', type: 'outbound' as const, phoneFrom: '+14155550100', leadName: 'Ann' };
      const mine = await store.calls.create(ws.id, { ...base, status: 'pending', phoneTo: '+14155551001' });
      const theirs = await store.calls.create(ws.id, { ...base, status: 'pending', phoneTo: '+14155551002' });
      await store.calls.admit(ws.id, 5, 'node-a', 1);
      await store.calls.admit(ws.id, 5, 'node-b', 1);
      // node-a died; node-b, without node-a's disk, failed its call (cut short, no recording).
      await store.calls.update(ws.id, mine.id, ['ringing'], {
        status: 'failed',
        holdsSlot: false,
        settings: { cut_short: true },
      });
      await store.calls.update(ws.id, theirs.id, ['ringing'], { status: 'failed', holdsSlot: false });
      const storage = createMemoryRecordings();
      for (const call of [mine, theirs]) {
        const writer = await storage.create(ws.id, call.id);
        await writer.write(wavHeader(0));
        await writer.write(new Uint8Array(16_000 * 4));
      }
      const stop = new AbortController();
      await serviceFor('node-a', { storage, urlOf: (id) => `u/${id}` }).start(stop.signal);
      stop.abort();
      expect(await store.calls.get(ws.id, mine.id)).toMatchObject({
        status: 'failed',
        settings: { cut_short: true, recording_url: `u/${mine.id}` },
      });
      expect((await storage.open(ws.id, mine.id))?.size).toBe(44 + 16_000 * 4);
      // Another node's call is that node's business.
      expect((await store.calls.get(ws.id, theirs.id))?.settings).toEqual({});
      expect(await storage.unfinished()).toEqual([{ workspaceId: ws.id, callId: theirs.id }]);
    });

    it('lets the recording decide the duration when it runs past the last kept turn', async () => {
      const ws = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 5 });
      const call = await store.calls.create(ws.id, {
        agentId: 'a1',
        type: 'outbound',
        status: 'pending',
        phoneFrom: '+14155550100',
        phoneTo: '+14155551001',
        leadName: 'Ann',
      });
      await store.calls.admit(ws.id, 5, 'node-a', 1);
      const answeredAt = clock.now();
      await store.calls.update(ws.id, call.id, ['ringing'], { status: 'in-progress', answeredAt });
      const storage = createMemoryRecordings();
      const writer = await storage.create(ws.id, call.id);
      await writer.write(wavHeader(0));
      await writer.write(new Uint8Array(12 * 16_000 * 4));
      clock.advance(60_000);
      const stop = new AbortController();
      await serviceFor('node-a', { storage, urlOf: (id) => `u/${id}` }).start(stop.signal);
      stop.abort();
      expect(await store.calls.get(ws.id, call.id)).toMatchObject({
        status: 'failed',
        transcript: '',
        durationSeconds: 12,
        endedAt: answeredAt + 12_000,
        settings: { cut_short: true, recording_url: `u/${call.id}` },
      });
    });
  });
}
