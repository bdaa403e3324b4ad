import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpeechSetup } from '../../src/app.ts';
import { createFakeSTT, createFakeTTS, createFakeVAD } from '../../src/providers/testing/index.ts';
import { createScriptedLLM } from '../../src/providers/testing/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createDataVoice } from '../../src/telephony/testing/index.ts';
import { STT_FINAL_TIMEOUT_MS } from '../../src/voice/index.ts';
import { agentBody, createTestApi, type TestApi } from '../helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../webhook-receiver/index.ts';

// Speech that fails in a real sim call over the API (audio legs in real time, speaking data speech
// so the words are exact): the call ends as `failed` with the reason, its slot is free, the
// record is complete and the post-call webhook is delivered; the next call runs as usual.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FINAL = new Set(['completed', 'failed', 'canceled']);

function speechWith(stt = createFakeSTT(), tts = createFakeTTS({ failOn: 'broken' })): SpeechSetup {
  return {
    choice: { speech: { vad: createFakeVAD(), stt, tts } },
    farEnd: createDataVoice(),
    close: async () => undefined,
  };
}

describe('failing speech in a sim call', () => {
  let receiver: WebhookReceiver;
  const apis: TestApi[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ secret: 'unused' });
  });
  afterAll(async () => {
    for (const t of apis) await t.close();
    await receiver.close();
  });

  async function setUp(speech: SpeechSetup, greeting: string) {
    const t = await createTestApi(storeTargets()[0]!, {
      llm: createScriptedLLM([{ text: 'Sure, tell me more.' }], { repeatLast: true }),
      speech,
      allowPrivateNetwork: true,
    });
    apis.push(t);
    await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: '+14155550142', provider: 'sim' },
    });
    const res = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({
        phone_number: '+14155550142',
        external_webhook_url: `${receiver.url}/hooks`,
        agent: { prompt: 'p', greeting_message: greeting },
      }),
    });
    return { t, agentId: res.json().response.model_id as string };
  }

  async function placeAndWait(t: TestApi, agentId: string): Promise<Json> {
    const placed = await t.call({
      method: 'POST',
      url: '/v2/calls',
      payload: { model_id: agentId, phone: '+14155551234', name: 'Ann' },
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const id = placed.json().response.call_id as string;
    let call: Json = {};
    await expect
      .poll(
        async () => {
          call = (await t.call({ method: 'GET', url: `/v2/calls/${id}` })).json().response.calls[0];
          return FINAL.has(call.status) && call.analysis !== null;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(true);
    return call;
  }

  it('a TTS that fails ends the call as failed; the slot, record and webhook are whole', async () => {
    const { t, agentId } = await setUp(speechWith(), 'Hello, this is a broken line.');
    const call = await placeAndWait(t, agentId);
    expect(call).toMatchObject({ status: 'failed', end_call_reason: 'undefined' });
    expect(call.error_message).toBe('speech synthesis (TTS) failed: the fake TTS was told to fail');
    expect(call.end_time).not.toBeNull();
    expect(await t.store.calls.busy(t.ws.id)).toBe(0);
    const hooksOf = () =>
      receiver.received
        .map((r) => JSON.parse(r.body) as Json)
        .filter((b) => b.call?.call_id === call.call_id);
    await expect.poll(() => hooksOf().length, { timeout: 10_000 }).toBe(1);
    expect(hooksOf()[0]!.call.status).toBe('failed');
  });

  it('an STT that never gives its final ends the call after its timeout', async () => {
    const { t, agentId } = await setUp(
      speechWith(createFakeSTT({ latencyMs: 10 * STT_FINAL_TIMEOUT_MS }), createFakeTTS()),
      'Hello, how are you?',
    );
    const started = Date.now();
    const call = await placeAndWait(t, agentId);
    expect(call.status).toBe('failed');
    expect(call.error_message).toMatch(/speech recognizer|STT|final/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STT_FINAL_TIMEOUT_MS);
    // The agent's greeting was said and is in the transcript; the callee's unheard line is not.
    expect(call.transcript).toContain('bot: Hello, how are you?');
    expect(await t.store.calls.busy(t.ws.id)).toBe(0);
  }, 40_000);
});
