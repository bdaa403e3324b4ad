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

// Concurrency slots: a workspace with max_concurrent_calls = 1 on a manual clock (the sim at
// real-time pace, so a call lasts until the clock moves). The second call waits as `pending` with
// an honest eta and starts the moment the first ends: the poll for waiting calls is set to an
// hour, so only the in-process "a slot freed" event can start it.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

forEachStore('call concurrency slots', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let ws: TestWorkspace;
  let agent: string;

  beforeAll(async () => {
    clock = createManualClock(Date.UTC(2026, 2, 2, 15));
    t = await createTestApi(target, {
      clock,
      llm: createBuiltinLLM(),
      simSpeed: 1,
      callsPollIntervalMs: 3_600_000,
    });
    ws = await createWorkspace(t.store, 'narrow', 'enterprise', 1);
    agent = (
      await ok('POST', '/v2/assistants', agentBody({ agent: { prompt: 'p', greeting_message: 'Hello!' } }))
    ).response.model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: '+14155550100', provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: ['+14155550100'] });
  });
  afterAll(() => t.close());

  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}), key: ws.key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Json;
  }
  const status = async (id: string) =>
    (await ok('GET', `/v2/calls/${id}`)).response.calls[0].status as string;

  /** Moves the clock in steps until `done` holds (each step lets the woken code run). */
  async function until(done: () => Promise<boolean>, stepMs = 1_000, steps = 600) {
    for (let i = 0; i < steps; i++) {
      if (await done()) return;
      await clock.tick(stepMs);
    }
    throw new Error('the condition never held');
  }

  it('a call over the limit waits as pending and starts as soon as the slot frees', async () => {
    const first = await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551234', name: 'Ann' });
    expect(first.eta).toBe(0);
    await until(async () => (await status(first.response.call_id)) !== 'pending', 0, 50);
    const second = await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551235', name: 'Bob' });
    // One call ahead holding the only slot, no history yet: one default call length.
    expect(second.eta).toBe(60);
    const a = first.response.call_id as string;
    const b = second.response.call_id as string;
    expect(await status(a)).toBe('ringing');
    expect(await status(b)).toBe('pending');

    await until(async () => (await status(a)) === 'completed');
    // No poll ran (an hour away): the slot freed by the first call started the second.
    await until(async () => (await status(b)) !== 'pending', 0, 50);
    expect(['ringing', 'in-progress']).toContain(await status(b));
    expect(await t.store.calls.busy(ws.id)).toBe(1);
    await until(async () => (await status(b)) === 'completed');
    expect(await t.store.calls.busy(ws.id)).toBe(0);
  });

  it('the eta of a waiting call follows the workspace’s recent call lengths', async () => {
    // The mean length of the workspace's answered calls so far (those of the test above).
    const answered = (await t.store.calls.list(ws.id, { limit: 10, offset: 0 })).calls.filter(
      (c) => (c.durationSeconds ?? 0) > 0,
    );
    expect(answered.length).toBeGreaterThan(0);
    const mean = answered.reduce((s, c) => s + (c.durationSeconds ?? 0), 0) / answered.length;
    const first = await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551236', name: 'Cy' });
    const second = await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551237', name: 'Di' });
    const third = await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551238', name: 'Ed' });
    expect(first.eta).toBe(0);
    expect(second.eta).toBe(Math.ceil(mean));
    expect(third.eta).toBe(Math.ceil(2 * mean));
    await until(async () => (await status(third.response.call_id)) === 'completed');
  });
});
