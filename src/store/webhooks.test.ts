import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../core/index.ts';
import { MAX_LOG_BODY_BYTES, type NewWebhookLog, type Store } from './index.ts';
import { storeTargets } from './testing/index.ts';

// The webhook outbox and log repository, once per dialect, on a manual clock.

const HOUR = 3_600_000;

for (const target of storeTargets()) {
  describe(`webhooks repository [${target.dialect}]`, () => {
    let clock: ManualClock;
    let store: Store;
    let ws: string;
    let other: string;

    beforeEach(async () => {
      clock = createManualClock();
      store = await target.open(clock);
      ws = (await store.workspaces.create({ name: 'a', plan: 'enterprise', maxConcurrentCalls: 1 })).id;
      other = (await store.workspaces.create({ name: 'b', plan: 'enterprise', maxConcurrentCalls: 1 })).id;
    });
    afterEach(() => store.close());

    const enqueue = (workspaceId = ws, extra: Record<string, unknown> = {}) =>
      store.webhooks.enqueue({
        workspaceId,
        type: 'external_webhook',
        url: 'https://example.com/hook',
        payload: { b: 1, a: 'x' },
        callId: 'call-1',
        assistantId: 'agent-1',
        ...extra,
      });

    const logOf = (over: Partial<NewWebhookLog> = {}): NewWebhookLog => ({
      workspaceId: ws,
      webhookType: 'external_webhook',
      status: 'success',
      url: 'https://example.com/hook',
      requestHeaders: { 'webhook-id': 'x' },
      requestBody: '{}',
      responseStatusCode: 200,
      responseHeaders: { 'content-type': 'text/plain' },
      responseBody: 'ok',
      attemptNumber: 1,
      durationMs: 3,
      ...over,
    });

    it('enqueues inside a transaction: kept on commit, gone on rollback', async () => {
      const kept = await store.transaction(async (repos) => {
        const d = await repos.webhooks.enqueue({
          workspaceId: ws,
          type: 'external_webhook',
          url: 'https://example.com/hook',
          payload: { b: 1, a: 'x' },
        });
        return repos.webhooks.getDelivery(ws, d.id);
      });
      expect(kept?.status).toBe('pending');
      await expect(
        store.transaction(async (repos) => {
          await repos.webhooks.enqueue({
            workspaceId: ws,
            type: 'external_webhook',
            url: 'https://x',
            payload: {},
          });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      const all = await store.webhooks.listDeliveries(ws);
      expect(all).toHaveLength(1);
      // The body is the exact serialization, kept as text (key order preserved).
      expect(all[0]?.body).toBe('{"b":1,"a":"x"}');
    });

    it('enqueues several deliveries in one statement, each pending and due now unless told', async () => {
      await store.webhooks.enqueueMany([]);
      await store.webhooks.enqueueMany([
        {
          workspaceId: ws,
          type: 'external_webhook',
          url: 'https://a.example/h',
          payload: { n: 1 },
          callId: 'c1',
        },
        {
          workspaceId: ws,
          type: 'external_webhook',
          url: 'https://b.example/h',
          payload: { n: 2 },
          notBefore: clock.now() + 60_000,
        },
      ]);
      const all = await store.webhooks.listDeliveries(ws);
      expect(all.map((d) => [d.url, d.body, d.status, d.nextAttemptAt - clock.now()])).toEqual([
        ['https://a.example/h', '{"n":1}', 'pending', 0],
        ['https://b.example/h', '{"n":2}', 'pending', 60_000],
      ]);
      expect(all[0]?.callId).toBe('c1');
      expect(new Set(all.map((d) => d.id)).size).toBe(2);
    });

    it('claims due rows once, with a lease that a later claim retakes', async () => {
      const d = await enqueue();
      await enqueue(ws, { notBefore: clock.now() + 60_000 });
      const [first, ...rest] = await store.webhooks.claimDue(10, 30_000);
      expect(rest).toEqual([]);
      expect(first?.id).toBe(d.id);
      expect(first?.attemptNumber).toBe(1);
      expect(first?.secrets).toHaveLength(1);
      expect(first?.workspaceActive).toBe(true);
      expect(await store.webhooks.claimDue(10, 30_000)).toEqual([]);
      expect(await store.webhooks.nextDueAt()).toBe(clock.now() + 30_000);

      // The worker died: once the lease ends the row is claimed again, as attempt 2.
      clock.advance(30_000);
      const again = await store.webhooks.claimDue(1, 30_000);
      expect(again.map((c) => [c.id, c.attemptNumber])).toEqual([[d.id, 2]]);
      // The first worker's late result no longer owns the row; its log row is still written.
      const late = await store.webhooks.recordAttempt(first!, logOf(), {
        status: 'success',
        statusCode: 200,
      });
      expect(late.leaseHeld).toBe(false);
      expect((await store.webhooks.getDelivery(ws, d.id))?.status).toBe('pending');
      const done = await store.webhooks.recordAttempt(again[0]!, logOf({ attemptNumber: 2 }), {
        status: 'success',
        statusCode: 200,
      });
      expect(done.leaseHeld).toBe(true);
      const row = await store.webhooks.getDelivery(ws, d.id);
      expect(row).toMatchObject({ status: 'success', attempts: 2, lastStatusCode: 200 });
      expect((await store.webhooks.listLogs(ws, {}, 1, 10)).total).toBe(2);
    });

    it('concurrent claims never hand the same row to two workers', async () => {
      for (let i = 0; i < 30; i++) await enqueue();
      const batches = await Promise.all([1, 2, 3, 4].map(() => store.webhooks.claimDue(10, 30_000)));
      const ids = batches.flat().map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(30);
    });

    it('a retry is due at its time; a failed or delivered row is never claimed again', async () => {
      const d = await enqueue();
      const [c] = await store.webhooks.claimDue(1, 30_000);
      await store.webhooks.recordAttempt(c!, logOf({ status: 'pending', responseStatusCode: 500 }), {
        status: 'pending',
        nextAttemptAt: clock.now() + 10_000,
        statusCode: 500,
        error: 'the receiver answered 500',
      });
      expect(await store.webhooks.claimDue(1, 30_000)).toEqual([]);
      expect(await store.webhooks.nextDueAt()).toBe(clock.now() + 10_000);
      clock.advance(10_000);
      const [c2] = await store.webhooks.claimDue(1, 30_000);
      expect(c2?.attemptNumber).toBe(2);
      await store.webhooks.recordAttempt(c2!, logOf({ status: 'failed' }), {
        status: 'failed',
        statusCode: 410,
      });
      clock.advance(HOUR);
      expect(await store.webhooks.claimDue(1, 30_000)).toEqual([]);
      expect(await store.webhooks.nextDueAt()).toBeNull();
      expect(await store.webhooks.getDelivery(ws, d.id)).toMatchObject({
        status: 'failed',
        lastStatusCode: 410,
      });
    });

    it('signs with the previous secret too for 24 h after a rotation', async () => {
      const before = (await store.workspaces.get(ws))!;
      const rotated = (await store.workspaces.rotateWebhookSecret(ws))!;
      expect(rotated.webhookSecret).not.toBe(before.webhookSecret);
      expect(rotated.previousWebhookSecret).toBe(before.webhookSecret);
      expect(rotated.previousWebhookSecretExpiresAt).toBe(clock.now() + 24 * HOUR);
      await enqueue();
      const [c] = await store.webhooks.claimDue(1, 1000);
      expect(c?.secrets).toEqual([rotated.webhookSecret, before.webhookSecret]);
      clock.advance(24 * HOUR);
      await enqueue();
      const claimed = await store.webhooks.claimDue(5, 1000);
      for (const x of claimed) expect(x.secrets).toEqual([rotated.webhookSecret]);
    });

    it('marks a deleted workspace’s deliveries as such', async () => {
      await enqueue();
      await store.workspaces.softDelete(ws);
      const [c] = await store.webhooks.claimDue(1, 1000);
      expect(c?.workspaceActive).toBe(false);
    });

    it('lists logs newest first with filters and pages, scoped to the workspace', async () => {
      const t0 = clock.now();
      await store.webhooks.appendLog(logOf({ callId: 'c1', assistantId: 'a1' }));
      clock.advance(1000);
      await store.webhooks.appendLog(
        logOf({ callId: 'c2', status: 'failed', webhookType: 'inbound_webhook' }),
      );
      clock.advance(1000);
      await store.webhooks.appendLog(logOf({ callId: 'c1', status: 'pending', assistantId: 'a2' }));
      await store.webhooks.appendLog(logOf({ workspaceId: other, callId: 'c1' }));

      const all = await store.webhooks.listLogs(ws, {}, 1, 10);
      expect(all.total).toBe(3);
      expect(all.items.map((l) => l.status)).toEqual(['pending', 'failed', 'success']);
      expect((await store.webhooks.listLogs(ws, { callId: 'c1' }, 1, 10)).total).toBe(2);
      expect((await store.webhooks.listLogs(ws, { assistantId: 'a2' }, 1, 10)).total).toBe(1);
      expect((await store.webhooks.listLogs(ws, { status: 'failed' }, 1, 10)).total).toBe(1);
      expect((await store.webhooks.listLogs(ws, { webhookType: 'inbound_webhook' }, 1, 10)).total).toBe(1);
      expect((await store.webhooks.listLogs(ws, { fromMs: t0 + 1000 }, 1, 10)).total).toBe(2);
      expect((await store.webhooks.listLogs(ws, { toMs: t0 + 1000 }, 1, 10)).total).toBe(2);
      expect((await store.webhooks.listLogs(ws, { fromMs: t0 + 1, toMs: t0 + 1999 }, 1, 10)).total).toBe(1);
      const page2 = await store.webhooks.listLogs(ws, {}, 2, 2);
      expect(page2.total).toBe(3);
      expect(page2.items.map((l) => l.status)).toEqual(['success']);

      const one = all.items[0]!;
      expect(await store.webhooks.getLog(ws, one.id)).toEqual(one);
      expect(await store.webhooks.getLog(other, one.id)).toBeNull();
      expect(one.requestHeaders).toEqual({ 'webhook-id': 'x' });
      expect(one.responseHeaders).toEqual({ 'content-type': 'text/plain' });
    });

    it('keeps log bodies storable: capped at 64 KiB, U+0000 replaced', async () => {
      const log = await store.webhooks.appendLog(
        logOf({ responseBody: 'é'.repeat(MAX_LOG_BODY_BYTES), requestBody: 'a\u0000b' }),
      );
      const read = (await store.webhooks.getLog(ws, log.id))!;
      expect(Buffer.byteLength(read.responseBody!, 'utf8')).toBeLessThanOrEqual(MAX_LOG_BODY_BYTES);
      expect(read.requestBody).toBe('a\uFFFDb');
    });
  });
}
