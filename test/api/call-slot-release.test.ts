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

forEachStore('a slot released at hang-up', (target) => {
  let t: TestApi;
  let ws: TestWorkspace;
  let agent: string;
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  let judging = 0;

  beforeAll(async () => {
    const builtin = createBuiltinLLM();
    const llm: LLM = {
      name: 'gated',
      async *chat(request: ChatRequest) {
        if (request.tools?.some((tool) => tool.name === 'record_analysis')) {
          judging += 1;
          await gate;
        }
        yield* builtin.chat(request);
      },
    };
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
    // The first hung up and waits for its judge; its line went to the second call.
    await expect.poll(() => judging).toBeGreaterThanOrEqual(1);
    const a = await call(first);
    expect(a).toMatchObject({ status: 'in-progress', holdsSlot: false });
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
