import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineSpeech, type SpeechSetup } from '../../src/app.ts';
import { silentLogger } from '../../src/core/index.ts';
import { createScriptedLLM } from '../../src/providers/testing/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import type { VoiceQuality } from '../../src/voice/index.ts';
import { TEST_PUBLIC_URL, createTestApi, type TestApi } from '../helpers.ts';

// A sim call over the API with the offline defaults, in real time: the simulated callee's lines are
// synthesized by flite into frames, the agent hears them through the energy VAD and PocketSphinx,
// answers with flite, and the callee hears the agent the same way (it answers only what it
// recognized as a finished line, so a call that goes back and forth has both ears working). The
// record keeps both sides' words, the measured latencies of each turn, and the recording.
//
// Both sides run on one scripted model line, so the words the callee said are known.

const LINE = 'I own my home and I like solar power.';
const SAID = ['own', 'my', 'home', 'like', 'solar', 'power'];
const FINAL = new Set(['completed', 'failed', 'canceled', 'hangup_on_voicemail', 'left_voicemail']);

describe('a sim call with the offline speech', () => {
  let speech: SpeechSetup;
  let t: TestApi;

  beforeAll(async () => {
    speech = await offlineSpeech({ logger: silentLogger(), simMode: 'audio' });
    if (!speech.farEnd) {
      throw new Error(`PocketSphinx is needed for this test: ${JSON.stringify(speech.choice)}`);
    }
    t = await createTestApi(storeTargets()[0]!, {
      llm: createScriptedLLM([{ text: LINE }], { repeatLast: true }),
      speech,
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await speech?.close();
  });

  it('both sides speak and hear; the record has their words and each turn measured', async () => {
    await t.call({
      method: 'POST',
      url: '/v2/custom-numbers',
      payload: { phone_number: '+14155550142', provider: 'sim' },
    });
    const agent = await t.call({
      method: 'POST',
      url: '/v2/assistants',
      payload: {
        type: 'outbound',
        name: 'Solar',
        phone_number: '+14155550142',
        is_recording: true,
        agent: {
          prompt: 'You sell solar panels.',
          // The callee says "Hello?" when it picks up; the agent answers that.
          greeting_message_mode: 'human',
        },
      },
    });
    const modelId = agent.json().response.model_id as string;
    const placed = await t.call({
      method: 'POST',
      url: '/v2/calls',
      payload: { model_id: modelId, phone: '+14155551234', name: 'Ann' },
    });
    expect(placed.statusCode).toBe(200);
    const callId = placed.json().response.call_id as string;

    let call: Record<string, unknown> = {};
    await expect
      .poll(
        async () => {
          const read = await t.call({ method: 'GET', url: `/v2/calls/${callId}` });
          call = read.json().response.calls[0];
          return FINAL.has(String(call.status));
        },
        { timeout: 110_000, interval: 500 },
      )
      .toBe(true);

    expect(call.status).toBe('completed');
    expect(call.end_call_reason).toBe('human_goodbye');
    const lines = String(call.transcript).split('\n');
    const human = lines.filter((l) => l.startsWith('human: ')).map((l) => l.slice(7));
    const bot = lines.filter((l) => l.startsWith('bot: ')).map((l) => l.slice(5));
    // The callee's "Hello?" came first, then the scripted line went back and forth.
    expect(lines[0], lines.join('\n')).toMatch(/^human: .*hello/);
    expect(bot[0]).toBe(LINE);
    expect(human.length).toBeGreaterThanOrEqual(3);
    // What PocketSphinx heard of the callee: at least half the words it said (it heard "I own my
    // home and I like solar power" as "io why don't i like solar power" when this was written).
    const heard = new Set(human.join(' ').split(/\s+/));
    expect(SAID.filter((w) => heard.has(w)).length, human.join('\n')).toBeGreaterThanOrEqual(3);

    const quality = call.quality as VoiceQuality;
    expect(quality.mode).toBe('voice');
    expect(quality.turns).toBeGreaterThanOrEqual(2);
    const replies = quality.per_turn.filter(
      (turn) => turn.kind === 'reply' && turn.end_of_speech_at !== null,
    );
    for (const turn of replies.slice(0, -1)) {
      // Every stage of an answered turn is measured, in order.
      expect(turn.endpoint_at).toBeGreaterThanOrEqual(turn.end_of_speech_at!);
      expect(turn.stt_final_at).toBeGreaterThanOrEqual(turn.endpoint_at!);
      expect(turn.model_first_token_at).toBeGreaterThanOrEqual(turn.stt_final_at!);
      expect(turn.first_frame_out_at).toBeGreaterThanOrEqual(turn.model_first_token_at!);
      expect(turn.total_ms).toBe(turn.first_frame_out_at! - turn.end_of_speech_at!);
    }
    expect(quality.latency_ms.p50).not.toBeNull();
    expect(quality.talk_ms.caller).toBeGreaterThan(1000);
    expect(quality.talk_ms.agent).toBeGreaterThan(1000);
    expect(Number(call.duration)).toBeGreaterThan(5);

    // The recording: a stereo WAV at 16 kHz as long as the call, the caller left, the agent right.
    expect(call.recording_url).toBe(`${TEST_PUBLIC_URL}/v2/calls/${callId}/recording`);
    const wav = await t.call({ method: 'GET', url: new URL(String(call.recording_url)).pathname });
    expect(wav.statusCode).toBe(200);
    const bytes = wav.rawPayload;
    expect(bytes.toString('ascii', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt16LE(22)).toBe(2);
    expect(bytes.readUInt32LE(24)).toBe(16_000);
    const frames = (bytes.length - 44) / 4;
    expect(frames / 16_000).toBeGreaterThan(quality.duration_ms / 1000 - 2);
    let left = 0;
    let right = 0;
    for (let i = 44; i + 3 < bytes.length; i += 4) {
      left += Math.abs(bytes.readInt16LE(i));
      right += Math.abs(bytes.readInt16LE(i + 2));
    }
    expect(left / frames).toBeGreaterThan(50);
    expect(right / frames).toBeGreaterThan(50);
  }, 120_000);
});
