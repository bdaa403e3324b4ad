import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { createBuiltinLLM } from '../../src/providers/index.ts';
import { expectFieldError, expectNotFound } from '../assertions.ts';
import { agentBody, createTestApi, forEachStore, type TestApi } from '../helpers.ts';

// Inbound calls on the sim carrier (POST /v2/sim/inbound) routed by the inbound webhook, each rule
// of the specification against a scripted receiver that verifies the signature: 1 an empty answer
// disconnects, 2 '' keeps the agent and another id reroutes (variables and metadata flow in), 3 no
// answer puts the call on hold and retries, 4 all failed: the default agent, else disconnect.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Answer = { status: number; body?: unknown };

const OURS = '+14155550100';
const CALLER = '+14155559876';

forEachStore('inbound calls', (target) => {
  let t: TestApi;
  let clock: ManualClock;
  let server: http.Server;
  let hookUrl = '';
  let secret = '';
  const answers: Answer[] = [];
  const received: { verified: boolean; body: Json }[] = [];
  let main: string;
  let other: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += String(c)));
      req.on('end', () => {
        let verified = true;
        try {
          new Webhook(secret).verify(raw, req.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        received.push({ verified, body: JSON.parse(raw) as Json });
        const answer = answers.shift() ?? { status: 500 };
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/inbound`;
    clock = createManualClock(Date.now());
    t = await createTestApi(target, {
      clock,
      llm: createBuiltinLLM(),
      allowPrivateNetwork: true,
      callsPollIntervalMs: 3_600_000,
    });
    secret = (await ok('GET', '/v2/webhook_secret')).webhook_secret as string;
    main = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({
          type: 'inbound',
          name: 'Front desk',
          inbound_call_webhook_url: hookUrl,
          agent: {
            prompt: 'You are Mia at Bright Smile Dental.',
            greeting_message: 'Bright Smile, Mia speaking. {tier}',
          },
        }),
      )
    ).model_id as string;
    other = (
      await ok(
        'POST',
        '/v2/assistants',
        agentBody({
          type: 'inbound',
          name: 'Billing',
          agent: { prompt: 'p', greeting_message: 'Billing here.' },
        }),
      )
    ).model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: OURS, provider: 'sim' });
    await ok('PUT', `/v2/assistants/${main}/phone_numbers`, { phone_numbers: [OURS] });
  });
  afterAll(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    answers.length = 0;
    received.length = 0;
    await ok('PUT', '/v2/workspace', { default_agent_id: null });
  });

  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  async function ring(): Promise<string> {
    const placed = await ok('POST', '/v2/sim/inbound', { from_number: CALLER, to_number: OURS });
    expect(placed.status).toBe('registered');
    return placed.call_id as string;
  }
  const read = async (id: string) => (await ok('GET', `/v2/calls/${id}`)).calls[0] as Json;
  /** Moves the clock through the retry spacing until the call is final. */
  async function settle(id: string): Promise<Json> {
    for (let i = 0; i < 200; i++) {
      const call = await read(id);
      if (!['registered', 'paused', 'in-progress'].includes(call.status)) return call;
      await clock.tick(100);
    }
    throw new Error('the call never ended');
  }

  it('rule 2: an empty override keeps the agent; custom variables and metadata flow into the call', async () => {
    answers.push({
      status: 200,
      body: {
        call_inbound: {
          override_model_id: '',
          custom_variables: { tier: 'Gold member.' },
          metadata: { crm: 'c-1' },
        },
      },
    });
    const call = await settle(await ring());
    expect(received).toHaveLength(1);
    expect(received[0]).toEqual({
      verified: true,
      body: { event: 'call_inbound', call_inbound: { model_id: main, from_number: CALLER, to_number: OURS } },
    });
    expect(call).toMatchObject({
      status: 'completed',
      model_id: main,
      type_of_call: 'inbound',
      phone_number_from: CALLER,
    });
    expect(call.metadata).toEqual({ crm: 'c-1' });
    expect(call.prompt_variables).toMatchObject({ tier: 'Gold member.' });
    expect(call.transcript).toContain('bot: Bright Smile, Mia speaking. Gold member.');
    const logs = await ok('GET', `/v2/logs?webhook_type=inbound_webhook&call_id=${call.call_id}`);
    expect(logs.items).toHaveLength(1);
    expect(logs.items[0]).toMatchObject({ status: 'success', attempt_number: 1, response_status_code: 200 });
  });

  it("custom variables in the spec's {key, value} items work as the object does", async () => {
    answers.push({
      status: 200,
      body: { call_inbound: { custom_variables: [{ key: 'tier', value: 'Silver member.' }] } },
    });
    const call = await settle(await ring());
    expect(call.prompt_variables).toMatchObject({ tier: 'Silver member.' });
    expect(call.transcript).toContain('bot: Bright Smile, Mia speaking. Silver member.');
  });

  it('rule 2: another id reroutes the call to that agent', async () => {
    answers.push({ status: 200, body: { call_inbound: { override_model_id: other } } });
    const call = await settle(await ring());
    expect(call).toMatchObject({ status: 'completed', model_id: other });
    expect(call.transcript).toMatch(/^bot: Billing here\./);
  });

  it('rule 1: an empty call_inbound disconnects', async () => {
    answers.push({ status: 200, body: { call_inbound: {} } });
    const turnedAway = t.engine.sim.rejections.length;
    const call = await settle(await ring());
    expect(call).toMatchObject({ status: 'canceled', transcript: '' });
    expect(call.error_message).toMatch(/disconnected/);
    // The carrier was told: the caller hears the call turned away, not a line that stays open.
    expect(t.engine.sim.rejections.slice(turnedAway)).toEqual(['unavailable']);
  });

  it('rule 3: no good answer puts the call on hold and retries; a later answer connects it', async () => {
    answers.push({ status: 500 }, { status: 200, body: { call_inbound: { override_model_id: '' } } });
    const id = await ring();
    await expect.poll(async () => (await read(id)).status).toBe('paused');
    const call = await settle(id);
    expect(received).toHaveLength(2);
    expect(call).toMatchObject({ status: 'completed', model_id: main });
  });

  it('rule 4: when every attempt fails the default agent takes the call, else it is disconnected', async () => {
    answers.push({ status: 500 }, { status: 500 }, { status: 502 }, { status: 503 });
    const disconnected = await settle(await ring());
    expect(received).toHaveLength(4);
    expect(disconnected.status).toBe('canceled');

    await ok('PUT', '/v2/workspace', { default_agent_id: other });
    received.length = 0;
    answers.push({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const rerouted = await settle(await ring());
    expect(received).toHaveLength(4);
    expect(rerouted).toMatchObject({ status: 'completed', model_id: other });
  });

  describe('bad input', () => {
    it('names the field; an unknown number is a 404', async () => {
      const post = (payload: Json) => t.call({ method: 'POST', url: '/v2/sim/inbound', payload });
      expectFieldError(await post({ from_number: 'x', to_number: OURS }), ['body', 'from_number']);
      expectFieldError(await post({ from_number: CALLER, to_number: '12' }), ['body', 'to_number']);
      expectFieldError(await post({ from_number: CALLER }), ['body', 'to_number']);
      expectNotFound(await post({ from_number: CALLER, to_number: '+14155550177' }));
    });
  });
});
