import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { HeadroomOptions } from '../../src/calls/index.ts';
import { createManualClock, type LoadGate, type ManualClock } from '../../src/core/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { agentBody, createTestApi, forEachStore, type StoreTarget, type TestApi } from '../helpers.ts';

// Overload (docs/operations.md): a saturated process takes no new calls. A call placed meanwhile
// waits `pending` (nothing degrades the calls already running), and starts at the next look for
// waiting calls once the process is clear; campaigns dispatch nothing while it is saturated.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The API on a manual clock with a sim number and one agent on it, for the tests of one store. */
function useOverloadApi(
  target: StoreTarget,
  options: { load: LoadGate; callLoad?: HeadroomOptions; greeting: string },
) {
  const api = { t: null as unknown as TestApi, clock: null as unknown as ManualClock, agent: '' };
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await api.t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Json;
  }
  beforeAll(async () => {
    api.clock = createManualClock(Date.UTC(2026, 2, 2, 15));
    api.t = await createTestApi(target, {
      clock: api.clock,
      llm: createBuiltinLLM(),
      simSpeed: 1,
      callsPollIntervalMs: 1000,
      load: options.load,
      ...(options.callLoad ? { callLoad: options.callLoad } : {}),
    });
    api.agent = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({ agent: { prompt: 'p', greeting_message: options.greeting } }),
      )
    ).response.model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: '+14155550100', provider: 'sim' });
    await ok('PUT', `/v2/assistants/${api.agent}/phone_numbers`, { phone_numbers: ['+14155550100'] });
  });
  afterAll(() => api.t.close());
  return {
    api,
    ok,
    status: async (id: string) => (await ok('GET', `/v2/calls/${id}`)).response.calls[0].status as string,
    /** How many calls were placed to `phone` (a campaign's recipient). */
    callsTo: async (phone: string) =>
      ((await ok('GET', '/v2/calls?limit=20')).response.calls as Json[]).filter(
        (c) => c.phone_number_to === phone,
      ).length,
  };
}

forEachStore('a saturated process', (target) => {
  // What the gate lets this process take: `left` new calls (the window's allowance), none while saturated.
  let left = Infinity;
  const taken: number[] = [];
  const load = {
    saturated: false,
    lagMs: 0,
    utilization: 0,
    windows: 0,
    allowance: () => (load.saturated ? 0 : left),
    claimed: (calls: number) => {
      taken.push(calls);
      left -= calls;
    },
  };
  const { api, ok, status, callsTo } = useOverloadApi(target, { load, greeting: 'Hello!' });

  it('leaves new calls pending while saturated and starts them once clear', async () => {
    load.saturated = true;
    const placed = await ok('POST', '/v2/calls', { model_id: api.agent, phone: '+14155551234', name: 'Ann' });
    const id = placed.response.call_id as string;
    for (let i = 0; i < 5; i += 1) {
      await api.clock.tick(1000);
      expect(await status(id)).toBe('pending');
    }
    load.saturated = false;
    let seen = 'pending';
    for (let i = 0; i < 20 && seen === 'pending'; i += 1) {
      await api.clock.tick(1000);
      seen = await status(id);
    }
    expect(['ringing', 'in-progress', 'completed']).toContain(seen);
  });

  it("takes no more new calls than the gate's allowance, and the rest at the next look", async () => {
    left = 1;
    taken.length = 0;
    const ids: string[] = [];
    for (const phone of ['+14155551240', '+14155551241']) {
      const placed = await ok('POST', '/v2/calls', { model_id: api.agent, phone, name: 'Ann' });
      ids.push(placed.response.call_id as string);
    }
    // The placements' admissions run on the store's own time (PostgreSQL: round trips).
    await vi.waitFor(() => expect(taken).toEqual([1]));
    await api.clock.tick(1000);
    expect((await Promise.all(ids.map(status))).filter((s) => s === 'pending')).toHaveLength(1);
    expect(taken).toEqual([1]);
    left = Infinity;
    let seen = ['pending'];
    for (let i = 0; i < 20 && seen.includes('pending'); i += 1) {
      await api.clock.tick(1000);
      seen = await Promise.all(ids.map(status));
    }
    expect(seen).not.toContain('pending');
    expect(taken.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('dispatches no campaign call while saturated', async () => {
    left = Infinity;
    load.saturated = true;
    await ok('POST', '/v2/calls/batch', {
      model_id: api.agent,
      from_phone_number: '+14155550100',
      tasks: [{ to_phone_number: '+14155551235' }],
    });
    const campaignCalls = () => callsTo('+14155551235');
    for (let i = 0; i < 3; i += 1) await api.clock.tick(1000);
    expect(await api.t.engine.dialer.round()).toBe(0);
    expect(await campaignCalls()).toBe(0);
    load.saturated = false;
    // Dispatched by this round or by the dialer's own loop, whichever runs first.
    for (let i = 0; i < 5 && (await campaignCalls()) === 0; i += 1) {
      await api.t.engine.dialer.round();
      await api.clock.tick(1000);
    }
    expect(await campaignCalls()).toBe(1);
  });
});

// The headroom (src/calls/headroom.ts): calls beyond those predicted to fit under the busy target
// wait `pending`, as do campaign calls; a burst is taken only up to the unknown budget until the
// calls taken have talked long enough to show what one costs.
forEachStore('a process near its headroom', (target) => {
  const load = {
    saturated: false,
    lagMs: 0,
    utilization: 0.1,
    windows: 0,
    allowance: () => Infinity,
    claimed: () => undefined,
  };
  const { api, ok, status, callsTo } = useOverloadApi(target, {
    load,
    callLoad: { target: 0.5, unknownBudget: 2, minLoaded: 2 },
    // A greeting a minute long keeps the calls talking through the tests.
    greeting: 'Thanks for taking my call today. '.repeat(30),
  });
  const place = async (phone: string) =>
    (await ok('POST', '/v2/calls', { model_id: api.agent, phone, name: 'Ann' })).response.call_id as string;
  /** A second of the clock, and a window of the load gate measured. */
  const second = async () => {
    load.windows += 1;
    await api.clock.tick(1000);
  };

  it('takes a burst up to the unknown budget, then as many as the measured cost fits', async () => {
    const ids = [await place('+14155551300'), await place('+14155551301'), await place('+14155551302')];
    await vi.waitFor(() => expect(api.t.engine.calls.running).toBe(2));
    // Before the two taken have answered (a 3 s ring), the third waits.
    for (let i = 0; i < 2; i += 1) {
      await second();
      expect(await status(ids[2]!)).toBe('pending');
    }
    // Two calls at 10% of the loop: 5% each, so ten fit under 50%; the third is taken once the two
    // have talked long enough to show it.
    let seen: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      await second();
      seen = await Promise.all(ids.map(status));
      if (!seen.includes('pending')) break;
    }
    expect(seen.slice(0, 2)).toEqual(['in-progress', 'in-progress']);
    expect(seen[2]).not.toBe('pending');
    // Claimed in the store first, then started here.
    await vi.waitFor(() => expect(api.t.engine.calls.running).toBe(3));
  });

  it('holds new calls and campaign calls while the calls it has fill the target', async () => {
    // Three calls at 50% of the loop: the target is full.
    for (let i = 0; i < 4; i += 1) {
      load.utilization = 0.5;
      await second();
    }
    const id = await place('+14155551303');
    await ok('POST', '/v2/calls/batch', {
      model_id: api.agent,
      from_phone_number: '+14155550100',
      tasks: [{ to_phone_number: '+14155551304' }],
    });
    const campaignCalls = () => callsTo('+14155551304');
    for (let i = 0; i < 3; i += 1) {
      await second();
      expect(await status(id)).toBe('pending');
    }
    expect(await api.t.engine.dialer.round()).toBe(0);
    expect(await campaignCalls()).toBe(0);
    // The loop lighter again: the held call is taken, and the campaign's.
    load.utilization = 0.1;
    for (let i = 0; i < 10 && (await status(id)) === 'pending'; i += 1) await second();
    expect(await status(id)).not.toBe('pending');
    for (let i = 0; i < 10 && (await campaignCalls()) === 0; i += 1) {
      await second();
      await api.t.engine.dialer.round();
    }
    expect(await campaignCalls()).toBe(1);
  });
});
