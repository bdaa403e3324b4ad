import { afterAll, beforeAll, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import {
  agentBody,
  createTestApi,
  createWorkspace,
  forEachStore,
  type TestApi,
  type TestWorkspace,
} from '../helpers.ts';

// The dialer's rules on a manual clock, with the sim at real-time pace (a call lasts until the
// clock moves) and the poll for waiting work an hour away, so that only the rules and the
// wake-ups decide what is dialed when: the concurrency cap minus reserved slots, fair shares
// between batches, calls per second, the trigger time, time windows, expiry, and a freed slot
// refilled at once.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FROM = '+14155550100';
// Monday 2026-03-02 08:00 UTC.
const MONDAY_8AM = Date.UTC(2026, 2, 2, 8);

forEachStore('the dialer', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let n = 0;

  beforeAll(async () => {
    clock = createManualClock(MONDAY_8AM);
    t = await createTestApi(target, {
      clock,
      llm: createBuiltinLLM(),
      simSpeed: 1,
      callsPollIntervalMs: 3_600_000,
      webhooks: { pollIntervalMs: 3_600_000 },
    });
  });
  afterAll(() => t.close());

  /** A workspace of its own per test: its cap, its agent, its number. */
  async function workspace(max: number, settings: Json = {}) {
    const ws = await createWorkspace(t.store, `w${n++}`, 'enterprise', max);
    const req = async (method: string, url: string, payload?: Json) => {
      const res = await t.call({
        method: method as 'GET',
        url,
        key: ws.key,
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { response: Json }).response;
    };
    if (Object.keys(settings).length > 0) await req('PUT', '/v2/workspace', settings);
    const agent = (
      await req(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'p', greeting_message: 'Hi!', timezone: 'UTC' } }),
      )
    ).model_id as string;
    await req('POST', '/v2/custom-numbers', { phone_number: FROM, provider: 'sim' });
    await req('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [FROM] });
    const batch = async (count: number, extra: Json = {}) =>
      (
        await req('POST', '/v2/calls/batch', {
          model_id: agent,
          from_phone_number: FROM,
          tasks: Array.from({ length: count }, (_, i) => ({
            to_phone_number: `+1415556${String(2000 + n * 100 + i)}`,
          })),
          ...extra,
        })
      ).batch_call_id as string;
    return { ws, req, agent, batch };
  }

  const counters = async (ws: TestWorkspace, id: string) => {
    const b = (await t.store.batches.get(ws.id, id))!;
    return {
      status: b.status,
      pending: b.pendingCount,
      dispatched: b.dispatchedCount,
      canceled: b.canceledCount,
    };
  };
  /**
   * Dispatched count after letting `ms` more pass (for waits on real I/O under load: each look
   * also fires whatever sleeps are due, so a round that was computed late still runs).
   */
  const dispatchedAfterTick = async (ws: TestWorkspace, id: string, ms = 100) => {
    if (ms > 0) await clock.tick(ms);
    return (await counters(ws, id)).dispatched;
  };
  const inUse = (ws: TestWorkspace) => t.store.calls.slotsWanted(ws.id);

  /** Moves the clock in steps, letting the dialer finish its round, checking `each` after every step. */
  async function run(ms: number, step: number, each: () => Promise<void>) {
    for (let elapsed = 0; elapsed < ms; elapsed += step) {
      await clock.tick(step);
      await t.engine.dialer.idle();
      await each();
    }
  }

  it('never exceeds max_concurrent_calls - reserved_concurrency for the batch; the reserved slot serves other calls', async () => {
    const w = await workspace(4);
    const id = await w.batch(12, { reserved_concurrency: 1 });
    let peak = 0;
    // Calls holding slots (standby calls wait beyond the cap without one).
    await run(20_000, 250, async () => {
      const busy = await t.store.calls.busy(w.ws.id);
      peak = Math.max(peak, busy);
      expect(busy).toBeLessThanOrEqual(3);
    });
    expect(peak).toBe(3);
    // A call outside the batch takes the reserved slot at once.
    const single = await w.req('POST', '/v2/calls', {
      model_id: w.agent,
      phone: '+14155557777',
      name: 'Solo',
    });
    expect(single.call_id).toBeTypeOf('string');
    await expect.poll(() => t.store.calls.busy(w.ws.id)).toBe(4);
    const c = await counters(w.ws, id);
    expect(c.status).toBe('in_progress');
    const calls = (await t.store.calls.list(w.ws.id, { batchCallId: id, limit: 20, offset: 0 })).calls;
    expect(calls.filter((x) => x.status !== 'pending').length).toBeLessThan(12);
  });

  it('shares the slots of a workspace fairly between its batches', async () => {
    const w = await workspace(4);
    await t.engine.dialer.stop(); // this test runs rounds by hand
    try {
      const a = await w.batch(10);
      const b = await w.batch(10);
      await t.engine.dialer.round();
      expect((await counters(w.ws, a)).dispatched).toBe(2);
      expect((await counters(w.ws, b)).dispatched).toBe(2);
    } finally {
      await t.engine.dialer.start();
    }
  });

  it('refills a freed slot at once, without waiting for the poll', async () => {
    const w = await workspace(1);
    const id = await w.batch(3);
    await run(1_000, 250, async () => undefined);
    // One call, one standby call.
    await expect.poll(() => dispatchedAfterTick(w.ws, id, 0), { timeout: 15_000 }).toBe(2);
    // Talk the first call to its end; the poll is an hour away, so only the "call ended" wake-up
    // can dial the third recipient (the standby call took the freed slot).
    for (let i = 0; i < 400 && (await counters(w.ws, id)).dispatched < 3; i++) {
      await clock.tick(500);
      await t.engine.dialer.idle();
    }
    expect((await counters(w.ws, id)).dispatched).toBe(3);
    expect(await t.store.calls.busy(w.ws.id)).toBe(1);
  });

  it('keeps standby calls beyond the free slots: a hang-up hands its slot to one with no dialer round; a pause returns them', async () => {
    const w = await workspace(1);
    const id = await w.batch(4);
    await run(1_000, 250, async () => undefined);
    // One call ringing, and (the batch dialing, no pacing, no window) as many standby calls
    // waiting for a slot: dispatched, not dialed yet.
    await expect.poll(() => dispatchedAfterTick(w.ws, id, 0), { timeout: 15_000 }).toBe(2);
    expect(await t.store.calls.busy(w.ws.id)).toBe(1);
    expect(await inUse(w.ws)).toBe(2);
    await t.engine.dialer.stop(); // from here no dialer round: only the hand-off can dial
    try {
      for (let i = 0; i < 400 && (await inUse(w.ws)) > 1; i++) await clock.tick(500);
      // The call ended and its slot went straight to the standby call.
      expect(await t.store.calls.busy(w.ws.id)).toBe(1);
      expect(await inUse(w.ws)).toBe(1);
      expect((await counters(w.ws, id)).dispatched).toBe(2);
    } finally {
      await t.engine.dialer.start();
    }
    await expect.poll(() => dispatchedAfterTick(w.ws, id), { timeout: 15_000 }).toBe(3);
    // Pausing returns the new standby call's recipient to the queue; the call in progress goes on.
    await w.req('POST', `/v2/calls/batch/${id}/pause`);
    expect(await counters(w.ws, id)).toMatchObject({ status: 'paused', dispatched: 2, pending: 2 });
    const tasks = (await t.store.batches.listTasks(id, { limit: 10, offset: 0 })).map((x) => x.status);
    expect(tasks).toEqual(['dispatched', 'dispatched', 'queued', 'queued']);
    expect(await inUse(w.ws)).toBe(1);
  });

  it('keeps no standby calls for a batch with a call time window', async () => {
    const w = await workspace(1);
    const allWeek = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    const id = await w.batch(3, {
      call_time_window: {
        enable: true,
        timezone: 'UTC',
        weekly_hours: allWeek.map((weekday) => ({ weekday, interval: [{ from: '00:00', to: '23:59' }] })),
      },
    });
    await run(1_000, 250, async () => undefined);
    await expect.poll(() => dispatchedAfterTick(w.ws, id, 0), { timeout: 15_000 }).toBe(1);
    await run(1_000, 250, async () => undefined);
    expect(await inUse(w.ws)).toBe(1);
    expect((await counters(w.ws, id)).dispatched).toBe(1);
  });

  it('paces dials by calls_per_second', async () => {
    const w = await workspace(100, { calls_per_second: 2 });
    const id = await w.batch(20);
    const start = clock.now();
    await run(5_000, 100, async () => {
      const seconds = (clock.now() - start) / 1000;
      // A bucket of one second's calls, then 2 per second.
      expect((await counters(w.ws, id)).dispatched).toBeLessThanOrEqual(2 + Math.floor(2 * seconds));
    });
    const dispatched = (await counters(w.ws, id)).dispatched;
    expect(dispatched).toBeGreaterThanOrEqual(10);
    expect(dispatched).toBeLessThanOrEqual(12);
  });

  it('waits for trigger_timestamp, then dials', async () => {
    const w = await workspace(5);
    const id = await w.batch(2, { trigger_timestamp: clock.now() + 60_000 });
    await run(59_000, 1_000, async () => {
      expect((await counters(w.ws, id)).dispatched).toBe(0);
    });
    await run(2_000, 500, async () => undefined);
    await expect.poll(() => dispatchedAfterTick(w.ws, id), { timeout: 15_000 }).toBe(2);
  });

  it('dials only inside the call time window (in its timezone), waking at the opening', async () => {
    const w = await workspace(5);
    // Tuesdays 09:00-10:00 in Paris (UTC+1 in March): closed until tomorrow 08:00 UTC.
    const id = await w.batch(2, {
      call_time_window: {
        enable: true,
        timezone: 'Europe/Paris',
        weekly_hours: [{ weekday: 'tuesday', interval: [{ from: '09:00', to: '10:00' }] }],
      },
    });
    await run(60_000, 10_000, async () => {
      expect((await counters(w.ws, id)).dispatched).toBe(0);
    });
    // Tuesday 09:00 Paris = 08:00 UTC, 24 h after the start.
    const opening = MONDAY_8AM + 24 * 3_600_000;
    await clock.tick(opening - clock.now() - 1);
    expect((await counters(w.ws, id)).dispatched).toBe(0);
    await run(2_000, 500, async () => undefined);
    await expect.poll(() => dispatchedAfterTick(w.ws, id), { timeout: 15_000 }).toBe(2);
  });

  it('cancels a batch seven days after its creation, with its queued recipients', async () => {
    const w = await workspace(5);
    const id = await w.batch(3, { trigger_timestamp: clock.now() + 30 * 86_400_000 });
    await clock.tick(7 * 86_400_000 - 1_000);
    expect((await counters(w.ws, id)).status).toBe('scheduled');
    await run(3_000, 1_000, async () => undefined);
    await t.engine.dialer.round();
    expect(await counters(w.ws, id)).toMatchObject({
      status: 'canceled',
      pending: 0,
      canceled: 3,
      dispatched: 0,
    });
  });
});
