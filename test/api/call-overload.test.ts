import { afterAll, beforeAll, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Overload (docs/operations.md): a saturated process takes no new calls. A call placed meanwhile
// waits `pending` (nothing degrades the calls already running), and starts at the next look for
// waiting calls once the process is clear; campaigns dispatch nothing while it is saturated.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

forEachStore('a saturated process', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  // What the gate lets this process take: `left` new calls (the window's allowance), none while saturated.
  let left = Infinity;
  const taken: number[] = [];
  const load = {
    saturated: false,
    lagMs: 0,
    utilization: 0,
    allowance: () => (load.saturated ? 0 : left),
    claimed: (calls: number) => {
      taken.push(calls);
      left -= calls;
    },
  };
  let agent: string;

  beforeAll(async () => {
    clock = createManualClock(Date.UTC(2026, 2, 2, 15));
    t = await createTestApi(target, {
      clock,
      llm: createBuiltinLLM(),
      simSpeed: 1,
      callsPollIntervalMs: 1000,
      load,
    });
    agent = (
      await ok('POST', '/v2/assistants', agentBody({ agent: { prompt: 'p', greeting_message: 'Hello!' } }))
    ).response.model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: '+14155550100', provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: ['+14155550100'] });
  });
  afterAll(() => t.close());

  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Json;
  }
  const status = async (id: string) =>
    (await ok('GET', `/v2/calls/${id}`)).response.calls[0].status as string;

  it('leaves new calls pending while saturated and starts them once clear', async () => {
    load.saturated = true;
    const placed = await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551234', name: 'Ann' });
    const id = placed.response.call_id as string;
    for (let i = 0; i < 5; i += 1) {
      await clock.tick(1000);
      expect(await status(id)).toBe('pending');
    }
    load.saturated = false;
    let seen = 'pending';
    for (let i = 0; i < 20 && seen === 'pending'; i += 1) {
      await clock.tick(1000);
      seen = await status(id);
    }
    expect(['ringing', 'in-progress', 'completed']).toContain(seen);
  });

  it("takes no more new calls than the gate's allowance, and the rest at the next look", async () => {
    left = 1;
    taken.length = 0;
    const ids: string[] = [];
    for (const phone of ['+14155551240', '+14155551241']) {
      const placed = await ok('POST', '/v2/calls', { model_id: agent, phone, name: 'Ann' });
      ids.push(placed.response.call_id as string);
    }
    await clock.tick(1000);
    expect(await Promise.all(ids.map(status))).toContain('pending');
    expect((await Promise.all(ids.map(status))).filter((s) => s === 'pending')).toHaveLength(1);
    expect(taken).toEqual([1]);
    left = Infinity;
    let seen = ['pending'];
    for (let i = 0; i < 20 && seen.includes('pending'); i += 1) {
      await clock.tick(1000);
      seen = await Promise.all(ids.map(status));
    }
    expect(seen).not.toContain('pending');
    expect(taken.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('dispatches no campaign call while saturated', async () => {
    load.saturated = true;
    await ok('POST', '/v2/calls/batch', {
      model_id: agent,
      from_phone_number: '+14155550100',
      tasks: [{ to_phone_number: '+14155551235' }],
    });
    for (let i = 0; i < 3; i += 1) await clock.tick(1000);
    expect(await t.engine.dialer.round()).toBe(0);
    load.saturated = false;
    expect(await t.engine.dialer.round()).toBeGreaterThan(0);
  });
});
