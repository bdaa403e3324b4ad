import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createFakeSTT,
  createFakeTTS,
  createFakeVAD,
  createToolCallingLLM,
} from '../../src/providers/testing/index.ts';
import { createDataVoice, createScriptedCallee } from '../../src/telephony/testing/index.ts';
import type { Callee } from '../../src/telephony/index.ts';
import { createTestApi, forEachStore, type TestApi } from '../helpers.ts';
import {
  FAKE_ACCOUNT_SID,
  FAKE_AUTH_TOKEN,
  MACHINE_GREETING,
  signTwilioWebhook,
  startFakeTwilio,
  type FakeTwilio,
} from '../twilio-server/index.ts';
import { freePort, until } from './ws-media-helpers.ts';

// Twilio numbers end to end (docs/twilio.md): the real server on a real port, the fake Twilio
// placing and receiving calls, posting signed callbacks and streaming the far end's audio (data
// speech the fake STT reads; the agent's fake TTS speaks data speech the far end reads). The
// workspace brings its own Twilio account through the API.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const OURS = '+14155550142';
const LEAD = '+14155550123';
const GREETING = 'Hello from Parley.';
const FRONT_DESK = '+14155550177';
const TRANSFERRED_LEAD = '+14155550178';
const BRIEFING = 'A lead asks for a person.';

forEachStore('Twilio numbers', (target) => {
  let t: TestApi;
  let fake: FakeTwilio;
  let port = 0;
  let agent = '';
  const heard: string[] = [];
  const leadHeard: string[] = [];
  const frontDeskHeard: string[] = [];

  /** The transfer's target: hears the briefing, then answers whoever speaks to it. */
  const frontDesk = (): Callee => ({
    opening: async () => '',
    async reply(said) {
      frontDeskHeard.push(said);
      return { text: frontDeskHeard.length === 1 ? '' : 'Front desk here.', hangUp: false };
    },
  });
  /**
   * A lead who asks for a person, holds, speaks up once the front desk has had its briefing (and
   * the bridge is up), and hangs up when the front desk answers.
   */
  const transferredLead = (): Callee => ({
    opening: async () => '',
    async reply(said) {
      leadHeard.push(said);
      if (leadHeard.length === 1) return { text: 'Put me through to a person.', hangUp: false };
      if (said === 'Please hold.') {
        await until(() => frontDeskHeard.length > 0, 'the briefing', 20_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        return { text: 'Is anyone there?', hangUp: false };
      }
      return { text: 'Thanks, bye.', hangUp: true };
    },
  });

  beforeAll(async () => {
    fake = await startFakeTwilio({
      voice: {
        pauseScale: 0,
        voice: createDataVoice(),
        callee: ({ to }) =>
          to === FRONT_DESK
            ? frontDesk()
            : to === TRANSFERRED_LEAD
              ? transferredLead()
              : createScriptedCallee(
                  [
                    (said) => (heard.push(said), 'Book a table'),
                    (said) => (heard.push(said), { text: 'Bye.', hangUp: true }),
                  ],
                  { opening: '' },
                ),
      },
    });
    port = await freePort();
    t = await createTestApi(target, {
      publicUrl: `http://127.0.0.1:${port}`,
      twilio: { baseUrl: fake.url },
      // The model answers `OK.`, except that an agent with the transfer tool uses it at once.
      llm: createToolCallingLLM('Front_desk'),
      speech: {
        choice: { speech: { vad: createFakeVAD(), stt: createFakeSTT(), tts: createFakeTTS() } },
        farEnd: null,
        close: async () => undefined,
      },
    });
    await t.api.listen({ port, host: '127.0.0.1' });
    agent = (
      await ok('POST', '/v2/assistants', {
        type: 'outbound',
        name: 'twilio agent',
        agent: { prompt: 'Be brief.', greeting_message: GREETING, greeting_message_mode: 'agent_static' },
      })
    ).model_id as string;
    await ok('POST', '/v2/custom-numbers', { phone_number: OURS, provider: 'twilio' });
    await ok('PUT', `/v2/assistants/${agent}/phone_numbers`, { phone_numbers: [OURS] });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  async function call(method: string, url: string, payload?: Json) {
    return t.call({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
  }
  async function ok(method: string, url: string, payload?: Json): Promise<Json> {
    const res = await call(method, url, payload);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { response: Json }).response;
  }
  async function record(id: string): Promise<Json> {
    return (await ok('GET', `/v2/calls/${id}`)).calls[0] as Json;
  }

  it("keeps the workspace's own account write-only; a bad account is a 400 naming the field", async () => {
    expect(await ok('GET', '/v2/twilio/account')).toEqual({
      source: 'none',
      account_sid: null,
      auth_token_set: false,
      updated_at: null,
    });
    const bad = await call('PUT', '/v2/twilio/account', { account_sid: 'AC123', auth_token: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('account_sid');
    const empty = await call('PUT', '/v2/twilio/account', { account_sid: FAKE_ACCOUNT_SID, auth_token: '' });
    expect(empty.statusCode).toBe(400);
    const set = await call('PUT', '/v2/twilio/account', {
      account_sid: FAKE_ACCOUNT_SID,
      auth_token: FAKE_AUTH_TOKEN,
    });
    expect(set.statusCode).toBe(200);
    expect(set.body).not.toContain(FAKE_AUTH_TOKEN);
    const read = await call('GET', '/v2/twilio/account');
    expect(read.body).not.toContain(FAKE_AUTH_TOKEN);
    expect(read.json().response).toMatchObject({
      source: 'workspace',
      account_sid: FAKE_ACCOUNT_SID,
      auth_token_set: true,
    });
    // Another workspace sees none of it.
    const other = await t.call({ method: 'GET', url: '/v2/twilio/account', key: t.other.key });
    expect(other.json().response.source).toBe('none');
    expect((await call('DELETE', '/v2/twilio/account')).statusCode).toBe(200);
    expect((await call('DELETE', '/v2/twilio/account')).statusCode).toBe(404);
    await ok('PUT', '/v2/twilio/account', { account_sid: FAKE_ACCOUNT_SID, auth_token: FAKE_AUTH_TOKEN });
  });

  it('places an outbound call through Twilio: the lead hears the agent, the agent hears the lead', async () => {
    heard.length = 0;
    const placed = await call('POST', '/v2/calls', { model_id: agent, phone: LEAD, name: 'Ann' });
    expect(placed.statusCode, placed.body).toBe(200);
    const id = placed.json().response.call_id as string;
    await until(() => heard.length >= 2, 'the greeting and the answer', 20_000);
    expect(heard[0]).toBe(GREETING);
    await expect.poll(async () => (await record(id)).status, { timeout: 20_000 }).toBe('completed');
    const done = await record(id);
    expect(done.transcript).toContain(`bot: ${GREETING}`);
    expect(done.transcript).toContain('human: Book a table');
    const create = fake.requests.find((r) => r.url.endsWith('/Calls.json'));
    expect(create?.auth?.username).toBe(FAKE_ACCOUNT_SID);
    expect(create?.form).toMatchObject({ To: LEAD, From: OURS });
    const sid = [...fake.voice.calls.values()].find((c) => c.direction === 'outbound-api')?.sid;
    expect((await t.store.calls.getById(id))?.callSid).toBe(sid);
  });

  it('answers an incoming call on its Voice URL after routing, and the agent talks', async () => {
    heard.length = 0;
    const voiceUrl = `http://127.0.0.1:${port}/v2/twilio/voice`;
    const incoming = await fake.voice.incoming({ voiceUrl, from: LEAD, to: OURS });
    expect(incoming.twiml[0]).toMatch(/<Connect><Stream url="ws:\/\/127\.0\.0\.1:\d+\/v2\/twilio\/stream">/);
    await until(() => heard.length >= 2, 'the greeting and the answer', 20_000);
    expect(heard[0]).toBe(GREETING);
    const calls = await ok('GET', '/v2/calls?limit=100');
    const inbound = (calls.calls as Json[]).find((c) => c.type_of_call === 'inbound');
    expect(inbound).toBeDefined();
    await expect
      .poll(async () => (await record(inbound?.call_id as string)).status, { timeout: 20_000 })
      .toBe('completed');
  });

  it("asks Twilio for machine detection when the agent leaves messages; Twilio's verdict ends in voicemail", async () => {
    const leaver = (
      await ok('POST', '/v2/assistants', {
        type: 'outbound',
        name: 'voicemail agent',
        agent: { prompt: 'Be brief.', greeting_message: GREETING, greeting_message_mode: 'human' },
        voicemail_message: { enabled: true, mode: 'exact_message', exact_message: 'Please call us back.' },
      })
    ).model_id as string;
    await ok('PUT', `/v2/assistants/${leaver}/phone_numbers`, { phone_numbers: [OURS] });
    const placed = await call('POST', '/v2/calls', { model_id: leaver, phone: '+14155553333', name: 'Bo' });
    expect(placed.statusCode, placed.body).toBe(200);
    const id = placed.json().response.call_id as string;
    await expect
      .poll(async () => (await record(id)).status, { timeout: 30_000 })
      .toMatch(/^(left_voicemail|hangup_on_voicemail)$/);
    const create = fake.requests.filter((r) => r.url.endsWith('/Calls.json')).at(-1);
    expect(create?.form).toMatchObject({ To: '+14155553333', MachineDetection: 'Enable', AsyncAmd: 'true' });
    // The agent without voicemail messages did not ask for it (billed per call).
    const first = fake.requests.find((r) => r.url.endsWith('/Calls.json'));
    expect(first?.form.MachineDetection).toBeUndefined();
    // Only Twilio's verdict could say so: the greeting is short and plain, with no beep.
    const done = await record(id);
    expect(done.transcript).toContain(`human: ${MACHINE_GREETING}`);
    expect(done.status).toBe('left_voicemail');
  }, 60_000);

  it('transfers warm: Parley places a second Twilio call, briefs it, and bridges the two streams', async () => {
    const transferring = (
      await ok('POST', '/v2/assistants', {
        type: 'outbound',
        name: 'transferring agent',
        agent: { prompt: 'Be brief.', greeting_message: GREETING, greeting_message_mode: 'agent_static' },
      })
    ).model_id as string;
    await ok('PUT', `/v2/assistants/${transferring}/phone_numbers`, { phone_numbers: [OURS] });
    const action = await ok('POST', '/v2/actions', {
      LIVE_TRANSFER: {
        name: 'Front desk',
        phone: FRONT_DESK,
        transfer_mode: 'warm_transfer',
        initiating_msg: 'Please hold.',
        message_to_transfer_target: BRIEFING,
        timeout: 20,
      },
    });
    await ok('POST', '/v2/actions/attach', { model_id: transferring, actions: [action.action_id] });
    const placed = await call('POST', '/v2/calls', {
      model_id: transferring,
      phone: TRANSFERRED_LEAD,
      name: 'Cy',
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const id = placed.json().response.call_id as string;
    // The lead hangs up once it hears the front desk through the bridge.
    await expect.poll(async () => (await record(id)).status, { timeout: 40_000 }).toBe('completed');
    // The front desk heard the briefing, then the lead through the bridge; the lead heard it back.
    expect(frontDeskHeard.slice(0, 2)).toEqual([BRIEFING, 'Is anyone there?']);
    expect(leadHeard).toEqual([GREETING, 'Please hold.', 'Front desk here.']);
    const creates = fake.requests.filter((r) => r.url.endsWith('/Calls.json')).map((r) => r.form);
    expect(creates.slice(-2)).toMatchObject([
      { To: TRANSFERRED_LEAD, From: OURS },
      { To: FRONT_DESK, From: OURS },
    ]);
    const done = await record(id);
    expect(done.action_execution_timeline).toMatchObject([
      { status: 'success', transfer: { method: 'bridge', outcome: 'connected', ended_by: 'caller' } },
    ]);
  }, 60_000);

  it('a Voice URL request without a valid signature is 403 and stores no call', async () => {
    const before = ((await ok('GET', '/v2/calls?limit=100')).calls as Json[]).length;
    const url = `http://127.0.0.1:${port}/v2/twilio/voice`;
    const form = { AccountSid: FAKE_ACCOUNT_SID, CallSid: `CA${'2'.repeat(32)}`, From: LEAD, To: OURS };
    const post = (signature: string | null) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(signature === null ? {} : { 'x-twilio-signature': signature }),
        },
        body: new URLSearchParams(form).toString(),
      });
    expect((await post(null)).status).toBe(403);
    expect((await post(signTwilioWebhook('wrong-token', url, form))).status).toBe(403);
    // Signed over another URL (a replay at another path) is refused too.
    expect((await post(signTwilioWebhook(FAKE_AUTH_TOKEN, `${url}x`, form))).status).toBe(403);
    expect(((await ok('GET', '/v2/calls?limit=100')).calls as Json[]).length).toBe(before);
  });
});
