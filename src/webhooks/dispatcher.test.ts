import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createManualClock, createSafeFetch, silentLogger, type ManualClock } from '../core/index.ts';
import type { Store, WebhookLog } from '../store/index.ts';
import { storeTargets } from '../store/testing/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../test/webhook-receiver/index.ts';
import {
  RETRY_DELAYS_MS,
  createWebhookDispatcher,
  webhookFetchLimits,
  type WebhookDispatcher,
} from './index.ts';

// Post-call webhook delivery against a real local receiver that verifies signatures with the
// `standardwebhooks` library, once per store dialect. Time is a manual clock: retries, timeouts and
// secret expiry happen by moving it, never by sleeping. `drain()` waits for the dispatcher to have
// nothing due and nothing in flight.

const HOUR = 3_600_000;
const PAYLOAD = {
  status: 'completed',
  call: { call_id: 'call-1', model_id: 'agent-1', transcript: 'bot: hi' },
};

for (const target of storeTargets()) {
  describe(`webhook dispatcher [${target.dialect}]`, () => {
    let clock: ManualClock;
    let store: Store;
    let ws: string;
    let secret: string;
    let receiver: WebhookReceiver;
    let dispatcher: WebhookDispatcher;
    let running: AbortController;

    beforeEach(async () => {
      // The receiver checks webhook-timestamp against the clock with a 5-minute tolerance.
      clock = createManualClock(Date.now());
      store = await target.open(clock);
      const w = await store.workspaces.create({ name: 'w', plan: 'enterprise', maxConcurrentCalls: 1 });
      ws = w.id;
      secret = w.webhookSecret;
      receiver = await startWebhookReceiver({ secret, now: () => clock.now() });
      dispatcher = createWebhookDispatcher({
        store,
        clock,
        logger: silentLogger(),
        http: createSafeFetch({ allowPrivateNetwork: true, ...webhookFetchLimits() }),
      });
      running = new AbortController();
      dispatcher.start(running.signal);
    });

    afterEach(async () => {
      running.abort();
      await dispatcher.stop();
      await receiver.close();
      await store.close();
    });

    /** Queues a webhook the way the calls module does: in a transaction, then wake(). */
    async function send(url = `${receiver.url}/hook`, payload: unknown = PAYLOAD): Promise<string> {
      const d = await store.transaction((repos) =>
        repos.webhooks.enqueue({
          workspaceId: ws,
          type: 'external_webhook',
          url,
          payload,
          callId: 'call-1',
          assistantId: 'agent-1',
        }),
      );
      dispatcher.wake();
      return d.id;
    }

    const delivery = async (id: string) => (await store.webhooks.getDelivery(ws, id))!;
    const logs = async (): Promise<WebhookLog[]> =>
      (await store.webhooks.listLogs(ws, {}, 1, 100)).items.slice().reverse();

    async function advanceAndDrain(ms: number): Promise<void> {
      clock.advance(ms);
      await dispatcher.drain();
    }

    it('delivers a signed webhook once, at once', async () => {
      const id = await send();
      await dispatcher.drain();
      expect(receiver.received).toHaveLength(1);
      const got = receiver.received[0]!;
      expect(got.verified).toBe(true);
      expect(JSON.parse(got.body)).toEqual(PAYLOAD);
      expect(got.headers['webhook-id']).toBe(id);
      expect(got.headers['webhook-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toBe('Parley-Webhooks/1');
      expect(await delivery(id)).toMatchObject({ status: 'success', attempts: 1, lastStatusCode: 200 });
      const [log] = await logs();
      expect(log).toMatchObject({
        deliveryId: id,
        status: 'success',
        webhookType: 'external_webhook',
        callId: 'call-1',
        assistantId: 'agent-1',
        responseStatusCode: 200,
        responseBody: '{"received":true}',
        attemptNumber: 1,
        requestBody: got.body,
        error: null,
      });
      expect(log?.requestHeaders['webhook-signature']).toBe(got.headers['webhook-signature']);
      await advanceAndDrain(48 * HOUR);
      expect(receiver.received).toHaveLength(1);
    });

    it('500, then recovery: the retry after about 10 s succeeds with the same id and bytes', async () => {
      receiver.respondWith('error');
      const id = await send();
      await dispatcher.drain();
      expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500 });
      // Not before its time.
      await advanceAndDrain(RETRY_DELAYS_MS[0]! - 1);
      expect(receiver.received).toHaveLength(1);
      await advanceAndDrain(1);
      expect(receiver.received).toHaveLength(2);
      const [a, b] = receiver.received;
      expect(b?.headers['webhook-id']).toBe(a?.headers['webhook-id']);
      expect(b?.body).toBe(a?.body);
      expect(b?.verified).toBe(true);
      expect(await delivery(id)).toMatchObject({ status: 'success', attempts: 2 });
      const rows = await logs();
      expect(rows.map((l) => [l.attemptNumber, l.status, l.responseStatusCode])).toEqual([
        [1, 'pending', 500],
        [2, 'success', 200],
      ]);
      expect(rows[0]?.responseBody).toBe('internal error');
    });

    it('follows the whole backoff schedule, then gives up', async () => {
      receiver.setDefaultMode('error');
      const id = await send();
      await dispatcher.drain();
      for (const delay of RETRY_DELAYS_MS) {
        const before = receiver.received.length;
        await advanceAndDrain(delay - 1);
        expect(receiver.received).toHaveLength(before);
        await advanceAndDrain(1);
        expect(receiver.received).toHaveLength(before + 1);
      }
      expect(receiver.received).toHaveLength(RETRY_DELAYS_MS.length + 1);
      const final = await delivery(id);
      expect(final).toMatchObject({ status: 'failed', attempts: 9, lastStatusCode: 500 });
      expect(final.lastError).toMatch(/gave up after 9 attempts/);
      const rows = await logs();
      expect(rows.map((l) => l.status)).toEqual([...Array<string>(8).fill('pending'), 'failed']);
      await advanceAndDrain(7 * 24 * HOUR);
      expect(receiver.received).toHaveLength(9);
    });

    it('410 stops retries; 413 is recorded as such and not retried', async () => {
      receiver.respondWith('gone', 'too_large');
      const gone = await send();
      await dispatcher.drain();
      const large = await send(`${receiver.url}/hook`, { big: 'x'.repeat(10_000) });
      await dispatcher.drain();
      await advanceAndDrain(48 * HOUR);
      expect(receiver.received).toHaveLength(2);
      expect(await delivery(gone)).toMatchObject({ status: 'failed', lastStatusCode: 410 });
      expect((await delivery(gone)).lastError).toMatch(/410/);
      expect(await delivery(large)).toMatchObject({ status: 'failed', lastStatusCode: 413 });
      expect((await delivery(large)).lastError).toMatch(/413/);
      expect((await logs()).map((l) => [l.status, l.responseStatusCode])).toEqual([
        ['failed', 410],
        ['failed', 413],
      ]);
    });

    it('receiver down: connection refused is retried, and delivered once it is back', async () => {
      const port = receiver.port;
      const url = `${receiver.url}/hook`;
      await receiver.close();
      const id = await send(url);
      await dispatcher.drain();
      const first = await delivery(id);
      expect(first.status).toBe('pending');
      expect(first.lastError).toMatch(/ECONNREFUSED/);
      expect((await logs())[0]).toMatchObject({ responseStatusCode: null, status: 'pending' });

      receiver = await startWebhookReceiver({ secret, port, now: () => clock.now() });
      await advanceAndDrain(RETRY_DELAYS_MS[0]!);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]?.verified).toBe(true);
      expect(await delivery(id)).toMatchObject({ status: 'success', attempts: 2 });
    });

    it('slow receiver: no answer within 10 s is a failed attempt, retried', async () => {
      receiver.respondWith('hang');
      const id = await send();
      await receiver.waitFor(1);
      expect(dispatcher.inFlight).toBe(1);
      await advanceAndDrain(10_000);
      const after = await delivery(id);
      expect(after.status).toBe('pending');
      expect(after.lastError).toMatch(/no answer within 10000 ms/);
      await vi.waitFor(() => expect(receiver.hanging).toBe(0)); // the request was abandoned
      await advanceAndDrain(RETRY_DELAYS_MS[0]!);
      expect(await delivery(id)).toMatchObject({ status: 'success', attempts: 2 });
      expect((await logs()).map((l) => [l.status, l.responseStatusCode])).toEqual([
        ['pending', null],
        ['success', 200],
      ]);
    });

    it('a hanging receiver does not hold up other deliveries', async () => {
      const hung = await send(`${receiver.url}/hang`);
      await receiver.waitFor(1);
      const others = [await send(), await send(), await send()];
      await vi.waitFor(async () => {
        for (const id of others) expect((await delivery(id)).status).toBe('success');
      });
      expect((await delivery(hung)).status).toBe('pending');
      expect(receiver.hanging).toBe(1);
      await advanceAndDrain(10_000);
      expect((await delivery(hung)).lastError).toMatch(/no answer/);
    });

    it('never runs more attempts at once than its concurrency', async () => {
      running.abort();
      await dispatcher.stop();
      dispatcher = createWebhookDispatcher({
        store,
        clock,
        logger: silentLogger(),
        http: createSafeFetch({ allowPrivateNetwork: true, ...webhookFetchLimits() }),
        concurrency: 2,
      });
      dispatcher.start();
      const ids = [await send(`${receiver.url}/hang`), await send(`${receiver.url}/hang`), await send()];
      await receiver.waitFor(2);
      expect(dispatcher.inFlight).toBe(2);
      expect(receiver.received.map((r) => r.path)).toEqual(['/hang', '/hang']);
      // The two hanging attempts time out, which frees the slots for the third.
      clock.advance(10_000);
      await dispatcher.drain();
      expect(await delivery(ids[2]!)).toMatchObject({ status: 'success' });
      expect((await delivery(ids[0]!)).status).toBe('pending');
    });

    it('keeps going after the store fails a claim', async () => {
      running.abort();
      await dispatcher.stop();
      let failures = 1;
      const webhooks = new Proxy(store.webhooks, {
        get(target, prop, receiverArg) {
          if (prop === 'claimDue' && failures > 0) {
            failures--;
            return () => Promise.reject(new Error('database is locked'));
          }
          return Reflect.get(target, prop, receiverArg) as unknown;
        },
      });
      dispatcher = createWebhookDispatcher({
        store: { webhooks },
        clock,
        logger: silentLogger(),
        http: createSafeFetch({ allowPrivateNetwork: true, ...webhookFetchLimits() }),
      });
      dispatcher.start();
      const id = await send();
      await dispatcher.drain();
      expect(await delivery(id)).toMatchObject({ status: 'success' });
    });

    it('closed connections are retried; a huge answer is cut and logged', async () => {
      receiver.respondWith('close', 'huge');
      const closed = await send();
      await dispatcher.drain();
      expect((await delivery(closed)).status).toBe('pending');
      expect((await delivery(closed)).lastError).toMatch(/socket hang up|ECONNRESET/);
      const huge = await send();
      await dispatcher.drain();
      expect(await delivery(huge)).toMatchObject({ status: 'success', lastStatusCode: 200 });
      const log = (await logs()).find((l) => l.deliveryId === huge)!;
      expect(log.responseBody?.length).toBe(64 * 1024);
      expect(log.error).toMatch(/cut at 65536 bytes/);
      await advanceAndDrain(RETRY_DELAYS_MS[0]!);
      expect((await delivery(closed)).status).toBe('success');
    });

    it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
      const rotated = (await store.workspaces.rotateWebhookSecret(ws))!;
      // A receiver still holding the old secret accepts during the overlap...
      await send();
      await dispatcher.drain();
      const during = receiver.received[0]!;
      expect(during.verified).toBe(true);
      expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
      expect(receiver.verifiesWith(during, secret)).toBe(true);
      expect(receiver.verifiesWith(during, rotated.webhookSecret)).toBe(true);

      // ...and after it only the new secret verifies.
      clock.advance(24 * HOUR);
      receiver.setSecret(rotated.webhookSecret);
      await send();
      await dispatcher.drain();
      const after = receiver.received[1]!;
      expect(after.verified).toBe(true);
      expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
      expect(receiver.verifiesWith(after, secret)).toBe(false);
    });

    it('a retry after a rotation is signed with the current secrets', async () => {
      receiver.respondWith('error');
      await send();
      await dispatcher.drain();
      const rotated = (await store.workspaces.rotateWebhookSecret(ws))!;
      clock.advance(24 * HOUR);
      receiver.setSecret(rotated.webhookSecret);
      await dispatcher.drain();
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.verified).toBe(true);
    });

    it('at least once: a row claimed by a worker that died is delivered after the lease', async () => {
      const id = await store.webhooks
        .enqueue({ workspaceId: ws, type: 'external_webhook', url: `${receiver.url}/hook`, payload: PAYLOAD })
        .then((d) => d.id);
      const [dead] = await store.webhooks.claimDue(1, 60_000); // a worker that crashes now
      expect(dead?.id).toBe(id);
      await dispatcher.drain();
      expect(receiver.received).toHaveLength(0);
      await advanceAndDrain(60_000);
      expect(receiver.received).toHaveLength(1);
      expect(await delivery(id)).toMatchObject({ status: 'success', attempts: 2 });
    });

    it('refuses private addresses unless allowed (failed, not retried)', async () => {
      const strict = createWebhookDispatcher({
        store,
        clock,
        logger: silentLogger(),
        http: createSafeFetch({ allowPrivateNetwork: false, ...webhookFetchLimits() }),
      });
      running.abort();
      await dispatcher.stop();
      dispatcher = strict;
      running = new AbortController();
      strict.start(running.signal);
      const id = await send();
      strict.wake();
      await strict.drain();
      expect(receiver.received).toHaveLength(0);
      const d = await delivery(id);
      expect(d.status).toBe('failed');
      expect(d.lastError).toMatch(/refusing to connect/);
    });

    it('stop() lets an in-flight attempt finish within its grace, then aborts it for a later retry', async () => {
      running.abort();
      await dispatcher.stop();
      dispatcher = createWebhookDispatcher({
        store,
        clock,
        logger: silentLogger(),
        http: createSafeFetch({ allowPrivateNetwork: true, ...webhookFetchLimits() }),
        stopGraceMs: 1000,
      });
      dispatcher.start();
      receiver.respondWith('hang');
      const id = await send();
      await receiver.waitFor(1);
      const stopped = dispatcher.stop();
      // Move the clock past the grace (again, until stop() has started waiting on it).
      await vi.waitFor(async () => {
        clock.advance(1000);
        await Promise.race([stopped, new Promise((r) => setImmediate(r))]);
        expect(dispatcher.inFlight).toBe(0);
      });
      await stopped;
      const d = await delivery(id);
      expect(d.status).toBe('pending');
      expect(d.lastError).toBe('aborted at shutdown');
      expect(d.nextAttemptAt).toBeLessThanOrEqual(clock.now());
    });
  });
}
