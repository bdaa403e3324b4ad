import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBuiltinLLM, type ChatRequest, type LLM } from '../../src/providers/index.ts';
import {
  agentBody,
  createTestApi,
  createWorkspace,
  forEachStore,
  type TestApi,
  type TestWorkspace,
} from '../helpers.ts';

// A call's slot goes back when it hangs up, not when its after-the-call work ends: with a hosted
// model the analysis takes seconds, and a line must not stay idle that long. The model here is
// the builtin one, except that the post-call judge waits on a gate the test opens.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The builtin model, except that each post-call judge request first awaits `beforeJudging`. */
function gatedJudge(beforeJudging: () => Promise<void>): LLM {
  const builtin = createBuiltinLLM();
  return {
    name: 'gated',
    async *chat(request: ChatRequest) {
      if (request.tools?.some((tool) => tool.name === 'record_analysis')) await beforeJudging();
      yield* builtin.chat(request);
    },
  };
}

forEachStore('a slot released at hang-up', (target) => {
  let t: TestApi;
  let ws: TestWorkspace;
  let agent: string;
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let judging = 0;

  beforeAll(async () => {
    const llm = gatedJudge(async () => {
      judging += 1;
      await gate;
    });
    t = await createTestApi(target, { llm });
    ws = await createWorkspace(t.store, 'one-line', 'enterprise', 1);
    agent = (
      await ok('POST', '/v2/assistants', agentBody({ agent: { prompt: 'p', greeting_message: 'Hello!' } }))
    ).response.model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: '+14155550100', provider: 'sim' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: ['+14155550100'] });
  });
  afterAll(async () => {
    openGate();
    await t.close();
  });

  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}), key: ws.key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Json;
  }
  const call = async (id: string) => (await t.store.calls.get(ws.id, id))!;

  it('starts the next waiting call while the first is still being analysed', async () => {
    const first = (await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551234', name: 'Ann' }))
      .response.call_id as string;
    const second = (await ok('POST', '/v2/calls', { model_id: agent, phone: '+14155551235', name: 'Bob' }))
      .response.call_id as string;
    // The first hung up and waits for its judge; it reads as final already (without its analysis)
    // and its line went to the second call.
    await expect.poll(() => judging).toBeGreaterThanOrEqual(1);
    const a = await call(first);
    expect(a).toMatchObject({ status: 'completed', holdsSlot: false, analysis: null });
    expect(a.endedAt).not.toBeNull();
    await expect.poll(async () => (await call(second)).status).not.toBe('pending');
    // The cap still holds: one call on the line at a time.
    expect(await t.store.calls.busy(ws.id)).toBeLessThanOrEqual(1);

    openGate();
    await t.engine.calls.idle();
    const [doneA, doneB] = [await call(first), await call(second)];
    expect(doneA).toMatchObject({ status: 'completed', holdsSlot: false, endedAt: a.endedAt });
    expect(doneA.analysis).not.toBeNull();
    expect(doneB.status).toBe('completed');
    // The second was admitted after the first hung up, before the first's last move.
    expect(doneB.ringingAt!).toBeGreaterThanOrEqual(a.endedAt!);
    expect(await t.store.calls.busy(ws.id)).toBe(0);
  });
});

forEachStore('after-the-call work, a few calls at a time', (target) => {
  let t: TestApi;
  let ws: TestWorkspace;
  let agent: string;
  const gates: (() => void)[] = [];
  let judging = 0;
  let mostAtOnce = 0;
  let gated = true;

  beforeAll(async () => {
    const llm = gatedJudge(async () => {
      judging += 1;
      mostAtOnce = Math.max(mostAtOnce, judging);
      if (gated) await new Promise<void>((resolve) => gates.push(resolve));
      judging -= 1;
    });
    t = await createTestApi(target, { llm, afterCallConcurrency: 2 });
    ws = await createWorkspace(t.store, 'three-lines', 'enterprise', 3);
    const res = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({ agent: { prompt: 'p', greeting_message: 'Hello!' } }),
      key: ws.key,
    });
    agent = (res.json() as Json).response.model_id as string;
    await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: '+14155550100', provider: 'sim' },
      key: ws.key,
    });
    await t.call({
      method: 'PUT',
      url: `/v2/assistants/${agent}/phone_numbers`,
      payload: { phone_numbers: ['+14155550100'] },
      key: ws.key,
    });
  });
  afterAll(async () => {
    gated = false;
    gates.forEach((open) => open());
    await t.close();
  });

  it('runs at most `afterCallConcurrency` calls’ analyses at once; the others wait their turn', async () => {
    for (const phone of ['+14155551240', '+14155551241', '+14155551242']) {
      const res = await t.call({
        method: 'POST',
        url: '/v2/calls',
        payload: { model_id: agent, phone, name: 'Ann' },
        key: ws.key,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    // All three hung up (their slots are back, then their records read completed), two are being
    // judged, the third waits.
    await expect.poll(() => t.store.calls.busy(ws.id)).toBe(0);
    await expect.poll(() => gates.length).toBe(2);
    const statuses = async () =>
      (await t.store.calls.list(ws.id, { limit: 10, offset: 0 })).calls.map((c) => c.status);
    await expect.poll(statuses).toEqual(['completed', 'completed', 'completed']);
    const calls = (await t.store.calls.list(ws.id, { limit: 10, offset: 0 })).calls;
    expect(calls.map((c) => c.analysis)).toEqual([null, null, null]);
    expect(gates.length).toBe(2);
    // The judges answer from now on (each call's judge may ask twice): the third call's turn comes.
    gated = false;
    gates.splice(0).forEach((open) => open());
    await t.engine.calls.idle();
    const done = (await t.store.calls.list(ws.id, { limit: 10, offset: 0 })).calls;
    expect(done.map((c) => c.status)).toEqual(['completed', 'completed', 'completed']);
    expect(done.every((c) => c.analysis !== null)).toBe(true);
    expect(mostAtOnce).toBe(2);
  });
});
