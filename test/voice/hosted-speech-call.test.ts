import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { speechVendorFactories, type SpeechSetup } from '../../src/app.ts';
import { silentLogger, systemClock } from '../../src/core/index.ts';
import {
  createFakeSTT,
  createFakeTTS,
  createFakeVAD,
  createScriptedLLM,
} from '../../src/providers/testing/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createDataVoice } from '../../src/telephony/testing/index.ts';
import { createFakeDeepgram, type FakeDeepgram } from '../deepgram-server/index.ts';
import { createFakeElevenLabs, type FakeElevenLabs } from '../elevenlabs-server/index.ts';
import { agentBody, createTestApi, type TestApi } from '../helpers.ts';

// A whole sim call (real time, real audio frames) whose agent hears through Deepgram and speaks
// with an ElevenLabs voice: the real adapters, built by the server's own vendor factories, against
// local fakes that speak the vendors' documented WebSocket protocols (their audio is data speech,
// so both sides hear exact words). Then the vendor drops its socket mid-sentence: the call goes on in the
// offline voice and completes, and its record says so.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const REPLY = 'Great, I can book you in on Tuesday at ten in the morning.';
const GREETING = 'Hello, this is Sam from the clinic.';

function offlineFakes(): SpeechSetup {
  const vad = createFakeVAD();
  const stt = { ...createFakeSTT(), name: 'pocketsphinx' };
  const tts = { ...createFakeTTS(), name: 'flite' };
  return {
    choice: { speech: { vad, stt, tts } },
    offline: { vad, stt, tts, voice: 'kal16', voices: ['kal16'] },
    farEnd: createDataVoice(),
    close: async () => undefined,
  };
}

describe('a sim call speaking with a hosted voice', () => {
  let t: TestApi;
  let vendor: FakeElevenLabs;
  let deepgram: FakeDeepgram;
  let agentId: string;

  beforeAll(async () => {
    vendor = await createFakeElevenLabs({ apiKey: 'el-secret' });
    deepgram = await createFakeDeepgram({ apiKey: 'dg-secret' });
    t = await createTestApi(storeTargets()[0]!, {
      llm: createScriptedLLM([{ text: REPLY }], { repeatLast: true }),
      speech: offlineFakes(),
      speechVendors: {
        config: {
          vendors: {
            elevenlabs: { apiKey: 'el-secret', baseUrl: vendor.baseUrl, voice: 'voice-rachel' },
            deepgram: { apiKey: 'dg-secret', baseUrl: deepgram.baseUrl },
          },
          stt: ['deepgram'],
          tts: ['elevenlabs'],
        },
        factories: speechVendorFactories({ clock: systemClock, logger: silentLogger() }),
      },
    });
    await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: '+14155550142', provider: 'sim' },
    });
    const agent = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({
        phone_number: '+14155550142',
        agent: {
          prompt: 'Book appointments.',
          greeting_message: GREETING,
          voice_id: 'voice-rachel',
          voice_stability: 0.4,
        },
        max_duration: { is_enabled: true, duration_seconds: 8 },
      }),
    });
    agentId = agent.json().response.model_id as string;
  });
  afterAll(async () => {
    await t.close();
    await vendor.close();
    await deepgram.close();
  });

  async function callToTheEnd(): Promise<Json> {
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
          return !['pending', 'ringing', 'in-progress'].includes(call.status) && call.analysis !== null;
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    return call;
  }

  it("hears through Deepgram's socket and speaks through ElevenLabs' with the agent's voice and settings", async () => {
    const call = await callToTheEnd();
    expect(call.status, call.error_message).toBe('completed');
    expect(call.quality.speech).toMatchObject({
      stt_providers: ['deepgram', 'pocketsphinx'],
      tts_providers: ['elevenlabs', 'flite'],
      voice: { requested: 'voice-rachel', available: true, voice: 'voice-rachel', provider: 'elevenlabs' },
      switches: [],
    });
    // The callee heard the agent and answered it: the vendor's audio carried the words (the
    // callee may talk over the greeting, which then keeps only what was played).
    expect(call.transcript).toMatch(/^bot: Hello, this is Sam/);
    expect(call.transcript).toContain('human: ');
    const used = vendor.connections.filter((c) => c.voice === 'voice-rachel');
    expect(used.length).toBeGreaterThan(0);
    expect(used.every((c) => c.keyOk)).toBe(true);
    expect(used[0]!.query.output_format).toBe('pcm_16000');
    const said = used
      .flatMap((c) => c.messages)
      .map((m) => String(m.text ?? ''))
      .join('');
    expect(said).toContain('Hello, this is Sam');
    expect(JSON.stringify(used[0]!.messages)).toContain('"stability":0.4');
    // Every caller line was heard by Deepgram (the sim's audio at 16 kHz), each turn by it.
    const heard = deepgram.connections.at(-1)!;
    expect(heard.query.sample_rate).toBe('16000');
    expect(heard.controls.some((c) => c.type === 'Finalize')).toBe(true);
    const turns = (call.quality.per_turn as Json[]).filter((turn) => turn.stt_provider !== null);
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((turn) => turn.stt_provider === 'deepgram')).toBe(true);
  }, 90_000);

  it('goes on in the offline voice when the vendor drops mid-sentence, and says so', async () => {
    vendor.behave({ after: 'drop' });
    const call = await callToTheEnd();
    expect(call.status, call.error_message).toBe('completed');
    expect(call.quality.speech.switches).toMatchObject([{ kind: 'tts', from: 'elevenlabs', to: 'flite' }]);
    expect(call.transcript).toMatch(/^bot: Hello, this is Sam/);
    expect((call.quality.per_turn as Json[]).slice(1).every((turn) => turn.tts_provider === 'flite')).toBe(
      true,
    );
  }, 90_000);
});
