import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { SESSION_RATE, type AudioFrame } from '../media/index.ts';
import {
  LLMError,
  SpeechError,
  type ChatChunk,
  type LLM,
  type STT,
  type STTResult,
  type TTS,
} from '../providers/index.ts';
import { createFakeSTT, createFakeTTS } from '../providers/testing/index.ts';
import { CALL_FALLBACK_LINE, MAX_DURATION_LINE } from './outcome.ts';
import { runScriptedCall, type ScriptedCall } from './testing/index.ts';

// How calls end: idle, maximum duration, either side hanging up, cancellation, and every failure
// that must end the call cleanly (status failed, a reason, the leg hung up, no timer left).

function expectClean(call: ScriptedCall) {
  expect(call.leg.endReason === 'local_hangup' || call.leg.endReason === 'remote_hangup').toBe(true);
  expect(call.leg.receiverErrors).toEqual([]);
  expect(call.clock.pendingSleeps).toBe(0);
}

const LONG_GREETING =
  'Hello, this is Parley. I am calling about your order from last week. It should arrive soon. Is now a good time to talk?';

describe('idle', () => {
  it('reminds a silent caller, then hangs up after the allowed idle time', async () => {
    const call = await runScriptedCall({
      settings: {
        idle: { allowedMs: 20_000, reminder: { afterMs: 6_000, message: 'Are you still there?' } },
      },
      script: [{ wait: 120_000 }],
    });
    const lines = call.conversation.transcript().split('\n');
    expect(lines).toEqual([
      'bot: Hello, this is Parley.',
      'bot: Are you still there?',
      'bot: Are you still there?',
    ]);
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'undefined' });
    // The greeting's last frame plays at 0.88 s; reminders come 6 s after the agent last spoke
    // (each is 41 frames), none in the last 2 s; the call ends 20 s after the greeting.
    const reminders = call.result.quality.per_turn.filter((t) => t.kind === 'reminder');
    expect(reminders.map((t) => t.first_frame_out_at)).toEqual([6_900, 13_700]);
    expect(call.result.quality.duration_ms).toBeGreaterThanOrEqual(20_880);
    expect(call.result.quality.duration_ms).toBeLessThanOrEqual(20_920);
    expect(call.leg.endReason).toBe('local_hangup');
    expectClean(call);
  });

  it('caller speech restarts the idle time', async () => {
    const call = await runScriptedCall({
      settings: { idle: { allowedMs: 10_000, reminder: null } },
      script: [{ wait: 8_000 }, { say: 'Hmm, let me think' }, { wait: 100_000 }],
      replies: [{ text: 'Take your time.' }],
    });
    expect(call.conversation.transcript()).toContain('bot: Take your time.');
    expect(call.result.endCallReason).toBe('undefined');
    expect(call.result.quality.duration_ms).toBeGreaterThan(18_000);
    expectClean(call);
  });

  it('silence forever ends by the default idle time', async () => {
    const call = await runScriptedCall({ script: [{ wait: 600_000 }] });
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'undefined' });
    expect(call.result.quality.duration_ms).toBeLessThan(32_000);
    expectClean(call);
  });
});

describe('maximum duration', () => {
  it('says the closing line at the limit, lets it play, and ends with max_duration', async () => {
    const call = await runScriptedCall({
      settings: { maxDurationMs: 10_000, minWordsToInterrupt: 3 },
      script: [
        { waitForAgentSilence: 200 },
        { say: 'Tell me everything about it' },
        { waitForAgentSilence: 200 },
        { say: 'And then what happened' },
        { wait: 60_000 },
      ],
      replies: [{ text: LONG_GREETING }],
    });
    const { result, leg, conversation } = call;
    expect(result).toMatchObject({ status: 'completed', endCallReason: 'max_duration' });
    expect(conversation.transcript().split('\n').at(-1)).toBe(`bot: ${MAX_DURATION_LINE}`);
    expect(leg.heardText().endsWith(MAX_DURATION_LINE)).toBe(true);
    const closing = result.quality.per_turn.find((t) => t.kind === 'closing');
    expect(closing?.first_frame_out_at).toBeGreaterThanOrEqual(10_000);
    expect(closing?.first_frame_out_at).toBeLessThanOrEqual(10_040);
    // The reply in progress at the limit was cut off and recorded as heard.
    expect(conversation.turns.some((t) => t.interrupted)).toBe(true);
    expect(leg.endReason).toBe('local_hangup');
    expectClean(call);
  });
});

describe('hang-ups', () => {
  it('the caller hangs up mid-sentence: the transcript keeps what was played', async () => {
    const call = await runScriptedCall({
      agent: { greeting_message: LONG_GREETING },
      script: [{ waitForAgentAudio: true }, { wait: 2_000 }, { hangup: true }],
    });
    const heard = call.leg.heardText();
    const kept = call.conversation.turns[0]?.text ?? '';
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'human_pick_up_cut_off' });
    expect(kept.length).toBeGreaterThan(10);
    expect(LONG_GREETING.startsWith(kept)).toBe(true);
    expect(heard.startsWith(kept)).toBe(true);
    expect(heard.slice(kept.length).trim()).not.toContain(' ');
    expect(call.conversation.turns[0]?.interrupted).toBe(true);
    expect(call.leg.endReason).toBe('remote_hangup');
    expectClean(call);
  });

  it('a caller who spoke and then hangs up ends with human_goodbye', async () => {
    const call = await runScriptedCall({
      script: [
        { waitForAgentSilence: 200 },
        { say: 'Not interested' },
        { waitForAgentAudio: true },
        { hangup: true },
      ],
      replies: [{ text: LONG_GREETING }],
    });
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'human_goodbye' });
    const last = call.conversation.turns.at(-1);
    expect(last?.speaker).toBe('agent');
    expect(last?.interrupted).toBe(true);
    expect((last?.text.length ?? 99) < 10).toBe(true);
    expectClean(call);
  });

  it('the agent ends the conversation: the goodbye plays out, then the agent hangs up', async () => {
    const call = await runScriptedCall({
      agent: { end_call_reasons: ['wrong number'] },
      script: [{ waitForAgentSilence: 200 }, { say: 'I never ordered anything' }, { wait: 30_000 }],
      replies: [{ toolCalls: [{ name: 'end_call', arguments: { reason: 'wrong number' } }] }],
    });
    expect(call.result).toMatchObject({
      status: 'completed',
      endCallReason: 'custom_end_call',
      customEndCallReason: 'wrong number',
    });
    expect(call.leg.heardText().endsWith('Thank you for your time. Goodbye!')).toBe(true);
    expect(call.leg.endReason).toBe('local_hangup');
    const lastFrame = call.leg.played.at(-1)?.at ?? 0;
    expect(call.startedAt + call.result.quality.duration_ms - lastFrame).toBeLessThanOrEqual(40);
    expectClean(call);
  });

  it("keeps the caller's words said over the agent's closing line, unanswered", async () => {
    const call = await runScriptedCall({
      agent: { end_call_reasons: ['wrong number'] },
      script: [
        { waitForAgentSilence: 200 },
        { say: 'I never ordered anything' },
        { waitForAgentAudio: true },
        { say: 'okay bye then' },
        { wait: 30_000 },
      ],
      replies: [{ toolCalls: [{ name: 'end_call', arguments: { reason: 'wrong number' } }] }],
    });
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'custom_end_call' });
    const [closing, last] = call.conversation.turns.slice(-2);
    // The caller's words cut the closing line short; the agent hung up while they went on.
    expect(closing).toMatchObject({ speaker: 'agent', interrupted: true });
    expect(last?.speaker).toBe('user');
    expect(last?.text.startsWith('okay bye')).toBe(true);
    expect(call.conversation.turns.filter((t) => t.speaker === 'agent')).toHaveLength(2);
    expectClean(call);
  });

  it('keeps the last words of a caller who hangs up before the recognizer has them', async () => {
    const clock = createManualClock(0);
    const call = await runScriptedCall({
      clock,
      // Like PocketSphinx: no partials, the final some time after the flush.
      stt: createFakeSTT({ clock, partials: false, latencyMs: 500 }),
      script: [{ waitForAgentSilence: 200 }, { say: 'that is all thanks' }, { wait: 40 }, { hangup: true }],
    });
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'human_goodbye' });
    const last = call.conversation.turns.at(-1);
    expect(last).toMatchObject({ speaker: 'user', text: 'that is all thanks' });
    expectClean(call);
  });

  it('a goodbye from the caller ends with human_goodbye after the reply', async () => {
    const call = await runScriptedCall({
      script: [{ waitForAgentSilence: 200 }, { say: 'bye' }, { wait: 30_000 }],
      replies: [{ text: 'Goodbye!' }],
    });
    expect(call.result).toMatchObject({ status: 'completed', endCallReason: 'human_goodbye' });
    expect(call.leg.heardText().endsWith('Goodbye!')).toBe(true);
    expectClean(call);
  });

  it('a canceled call hangs up', async () => {
    const controller = new AbortController();
    const call = await runScriptedCall({
      signal: controller.signal,
      script: [{ wait: 60_000 }],
      onBeat: (elapsed) => {
        if (elapsed >= 3_000) controller.abort();
      },
    });
    expect(call.result).toMatchObject({ status: 'canceled', endCallReason: 'undefined' });
    expect(call.result.quality.duration_ms).toBe(3_000);
    expect(call.leg.endReason).toBe('local_hangup');
    expectClean(call);
  });
});

describe('failures', () => {
  it('a model failure is answered with the fallback line and the call goes on', async () => {
    let calls = 0;
    const call = await runScriptedCall({
      script: [
        { waitForAgentSilence: 200 },
        { say: 'First question' },
        { waitForAgentSilence: 200 },
        { say: 'Second question' },
        { waitForAgentSilence: 200 },
        { hangup: true },
      ],
      replies: [
        () => {
          calls += 1;
          return calls === 1
            ? { error: new LLMError('down', 'llm_unavailable', true) }
            : { text: 'Back again.' };
        },
      ],
    });
    expect(call.conversation.transcript().split('\n')).toEqual([
      'bot: Hello, this is Parley.',
      'human: First question',
      `bot: ${CALL_FALLBACK_LINE}`,
      'human: Second question',
      'bot: Back again.',
    ]);
    expect(call.result.status).toBe('completed');
    expectClean(call);
  });

  it('a failing TTS ends the call as failed', async () => {
    const clock = createManualClock();
    const call = await runScriptedCall({
      clock,
      tts: createFakeTTS({ clock, failOn: 'Parley' }),
      script: [{ wait: 60_000 }],
    });
    expect(call.result.status).toBe('failed');
    expect(call.result.errorMessage).toContain('the fake TTS was told to fail');
    expect(call.result.quality.duration_ms).toBeLessThan(100);
    expectClean(call);
  });

  it('a TTS that never answers ends the call after 5 s', async () => {
    const clock = createManualClock();
    const call = await runScriptedCall({
      clock,
      tts: createFakeTTS({ clock, latencyMs: 3_600_000 }),
      script: [{ wait: 60_000 }],
    });
    expect(call.result.status).toBe('failed');
    expect(call.result.errorMessage).toMatch(/produced no audio for 5 s while text was waiting/);
    expect(call.result.quality.duration_ms).toBe(5_000);
    expectClean(call);
  });

  it('a TTS that stops in the middle of a sentence ends the call 5 s later', async () => {
    const clock = createManualClock();
    const inner = createFakeTTS({ clock });
    // Sends each sentence's first 10 frames, then nothing more.
    const stuck: TTS = {
      name: 'stuck',
      sampleRate: SESSION_RATE,
      stream(options = {}) {
        const stream = inner.stream(options);
        return {
          pushText: (t) => stream.pushText(t),
          flush: () => stream.flush(),
          endInput: () => stream.endInput(),
          close: () => stream.close(),
          audio: (async function* () {
            let sent = 0;
            for await (const piece of stream.audio) {
              if (sent < 10) yield piece;
              sent += 1;
            }
            await new Promise<void>((resolve) => options.signal?.addEventListener('abort', () => resolve()));
          })(),
        };
      },
    };
    const call = await runScriptedCall({ clock, tts: stuck, script: [{ wait: 60_000 }] });
    expect(call.result.status).toBe('failed');
    expect(call.result.errorMessage).toMatch(/stuck\) produced no audio for 5 s/);
    // The 10 frames were queued at once; the last arrived at 0 ms.
    expect(call.result.quality.duration_ms).toBe(5_000);
    expectClean(call);
  });

  it('an STT that gives no final ends the call 5 s after the flush', async () => {
    const clock = createManualClock();
    const call = await runScriptedCall({
      clock,
      stt: createFakeSTT({ clock, latencyMs: 3_600_000 }),
      script: [{ waitForAgentSilence: 200 }, { say: 'Hello there' }, { wait: 60_000 }],
    });
    expect(call.result.status).toBe('failed');
    expect(call.result.errorMessage).toMatch(/gave no final result 5 s after the end of speech/);
    const saidAt = (call.leg.saidAt[0]?.at ?? 0) - call.startedAt;
    // Speech end (24 frames) + 800 ms patience + 5 s.
    expect(call.result.quality.duration_ms - saidAt).toBeGreaterThanOrEqual(6_240);
    expect(call.result.quality.duration_ms - saidAt).toBeLessThanOrEqual(6_300);
    expectClean(call);
  });

  it('an STT that fails ends the call as failed with its error', async () => {
    const clock = createManualClock();
    const inner = createFakeSTT({ clock });
    const broken: STT = {
      name: 'broken',
      partials: true,
      stream(options) {
        const stream = inner.stream(options);
        return {
          ...stream,
          push: (frame) => stream.push(frame),
          flush: () => stream.flush(),
          close: () => stream.close(),
          results: {
            [Symbol.asyncIterator]: () => ({
              next: async (): Promise<IteratorResult<STTResult>> => {
                await clock.sleep(2_000);
                throw new SpeechError('the recognizer lost its connection', 'stt_unavailable', true);
              },
            }),
          },
        };
      },
    };
    const call = await runScriptedCall({ clock, stt: broken, script: [{ wait: 60_000 }] });
    expect(call.result).toMatchObject({
      status: 'failed',
      errorMessage: 'speech recognition (STT) failed: the recognizer lost its connection',
    });
    expect(call.result.quality.duration_ms).toBe(2_000);
    expectClean(call);
  });

  it('a model that never answers ends the call after 15 s', async () => {
    const silent: LLM = {
      name: 'silent',
      chat(request) {
        return (async function* (): AsyncGenerator<ChatChunk> {
          await new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve()));
          yield { type: 'done', finishReason: 'aborted', timings: { startedAt: 0, endedAt: 0 } };
        })();
      },
    };
    const call = await runScriptedCall({
      replies: silent,
      script: [{ waitForAgentSilence: 200 }, { say: 'Anyone there?' }, { wait: 60_000 }],
    });
    expect(call.result.status).toBe('failed');
    expect(call.result.errorMessage).toBe('the model did not answer within 15 s');
    expectClean(call);
  });

  it('garbage frames and a flood of keys do not break the call', async () => {
    const random = (n: number) => Int16Array.from({ length: n }, (_, i) => ((i * 7919) % 2001) - 1000);
    const garbage: AudioFrame[] = [
      { samples: random(100), sampleRate: SESSION_RATE, at: 0 },
      { samples: random(320), sampleRate: 11025 as never, at: 0 },
      { samples: new Int16Array(320), sampleRate: SESSION_RATE, at: Number.NaN },
      ...Array.from({ length: 20 }, (): AudioFrame => ({
        samples: random(320),
        sampleRate: SESSION_RATE,
        at: 0,
      })),
    ];
    const clock = createManualClock();
    const call = await runScriptedCall({
      clock,
      script: [
        { waitForAgentSilence: 200 },
        { frames: garbage },
        { wait: 2_000 },
        { dtmf: '1234567890'.repeat(30), gapMs: 0 },
        { wait: 2_000 },
        { say: 'Are you still there?' },
        { waitForAgentSilence: 300 },
        { hangup: true },
      ],
      replies: [{ text: 'Yes, I am here.' }],
    });
    expect(call.result.status).toBe('completed');
    expect(call.result.quality.dropped_frames).toBe(3);
    const keys = call.conversation.turns.filter((t) => t.text.startsWith('[The caller pressed the keys:'));
    expect(keys).toHaveLength(1);
    expect(keys[0]?.text.split(' ').length).toBe(5 + 32);
    expect(call.conversation.transcript()).toContain('human: Are you still there?\nbot: Yes, I am here.');
    expectClean(call);
  });
});
