import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpeechSetup } from '../../src/app.ts';
import type { HostedSTT, HostedTTS, STT, TTS } from '../../src/providers/index.ts';
import {
  createBrokenSTT,
  createBrokenTTS,
  createFakeSTT,
  createFakeTTS,
  createFakeVAD,
  createScriptedLLM,
} from '../../src/providers/testing/index.ts';
import type { SpeechVendorFactories } from '../../src/speech/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createDataVoice } from '../../src/telephony/testing/index.ts';
import { agentBody, createTestApi, type TestApi } from '../helpers.ts';

// Hosted speech that fails in the middle of a real sim call (audio legs in real time, data speech
// so the words are exact): the call goes on with the next provider and completes; nothing the
// callee said is lost; the record names each provider dropped and why, and which one served each
// turn. The hosted vendors are fakes of the adapter seam (their wire protocols have suites of
// their own).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What the model says, for the agent and (the sim's callee runs on it too) for the callee. */
const REPLY = 'Great, I can book you in on Tuesday at ten in the morning.';

const hosted = {
  stt: (name: string, inner: STT): HostedSTT => ({
    name,
    partials: inner.partials,
    stream: (o) => inner.stream(o),
    check: async () => ({ ok: true }),
  }),
  tts: (name: string, inner: TTS, voices: string[]): HostedTTS => ({
    name,
    sampleRate: inner.sampleRate,
    stream: (o) => inner.stream(o),
    check: async () => ({ ok: true }),
    voices: async () =>
      voices.map((id) => ({ id, name: id, gender: null, languages: ['en-US'], description: '' })),
  }),
};

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

describe('a sim call whose hosted speech fails mid-call', () => {
  let t: TestApi;

  beforeAll(async () => {
    // Deepgram drops its socket in the middle of the callee's first line; ElevenLabs in the middle
    // of the greeting's first sentence.
    const factories: SpeechVendorFactories = {
      stt: {
        deepgram: () =>
          hosted.stt(
            'deepgram',
            createBrokenSTT(createFakeSTT(), { kind: 'drop', afterFrames: 60 }, 'deepgram'),
          ),
      },
      tts: {
        elevenlabs: () =>
          hosted.tts(
            'elevenlabs',
            createBrokenTTS(createFakeTTS(), { kind: 'drop', afterFrames: 10 }, 'elevenlabs'),
            ['rachel'],
          ),
      },
    };
    t = await createTestApi(storeTargets()[0]!, {
      llm: createScriptedLLM([{ text: REPLY }], {
        repeatLast: true,
      }),
      speech: offlineFakes(),
      speechVendors: {
        config: {
          vendors: { deepgram: { apiKey: 'k' }, elevenlabs: { apiKey: 'k' } },
          stt: ['deepgram'],
          tts: ['elevenlabs'],
        },
        factories,
      },
    });
    await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: '+14155550142', provider: 'sim' },
    });
  });
  afterAll(() => t.close());

  it('goes on with the next provider, completes, and says who served what', async () => {
    const agent = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: agentBody({
        phone_number: '+14155550142',
        agent: {
          prompt: 'Book appointments.',
          greeting_message: 'Hello, this is Sam. When would you like to come in?',
          voice_id: 'rachel',
        },
        max_duration: { is_enabled: true, duration_seconds: 12 },
      }),
    });
    const placed = await t.call({
      method: 'POST',
      url: '/v2/calls',
      payload: { model_id: agent.json().response.model_id, phone: '+14155551234', name: 'Ann' },
    });
    expect(placed.statusCode, placed.body).toBe(200);
    const id = placed.json().response.call_id as string;
    let call: Json = {};
    await expect
      .poll(
        async () => {
          call = (await t.call({ method: 'GET', url: `/v2/calls/${id}` })).json().response.calls[0];
          return (
            call.status !== 'in-progress' &&
            call.status !== 'pending' &&
            call.status !== 'ringing' &&
            call.analysis !== null
          );
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    expect(call.status, call.error_message).toBe('completed');
    const speech = call.quality.speech as Json;
    expect(speech).toMatchObject({
      stt_providers: ['deepgram', 'pocketsphinx'],
      tts_providers: ['elevenlabs', 'flite'],
      voice: { requested: 'rachel', available: true, voice: 'rachel', provider: 'elevenlabs' },
    });
    // Each provider is dropped once, for the rest of the call.
    expect(speech.switches.map((s: Json) => [s.kind, s.from, s.to, s.reason])).toEqual([
      ['tts', 'elevenlabs', 'flite', 'elevenlabs dropped its socket'],
      ['stt', 'deepgram', 'pocketsphinx', 'deepgram dropped its socket'],
    ]);
    // Nothing the callee said was lost: every human line is a whole line it said, the one that
    // was in progress when Deepgram dropped included (replayed into PocketSphinx).
    const humanLines = (call.transcript as string).split('\n').filter((l) => l.startsWith('human: '));
    expect(humanLines.length).toBeGreaterThanOrEqual(2);
    for (const line of humanLines) expect(['human: Hello?', `human: ${REPLY}`]).toContain(line);
    // Which provider served each agent turn: the greeting began on ElevenLabs, the rest on flite;
    // turns heard after the drop name PocketSphinx.
    const turns = call.quality.per_turn as Json[];
    expect(turns[0]).toMatchObject({ kind: 'greeting', tts_provider: 'elevenlabs' });
    expect(turns.slice(1).every((turn) => turn.tts_provider === 'flite')).toBe(true);
    const heard = turns.map((turn) => turn.stt_provider).filter((p) => p !== null);
    expect(heard.at(-1)).toBe('pocketsphinx');
  }, 90_000);
});
