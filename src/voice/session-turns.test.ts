import { describe, expect, it } from 'vitest';
import { createAsyncQueue, createManualClock, type Clock } from '../core/index.ts';
import { ToolRegistry } from '../conversation/index.ts';
import { createDataSpeechReader } from '../media/index.ts';
import type { STT, STTResult, TTS, TTSOptions } from '../providers/index.ts';
import { createFakeTTS, createScriptedLLM } from '../providers/testing/index.ts';
import { runScriptedCall, type FarEndStep } from './testing/index.ts';
import type { PatienceLevel } from './settings.ts';

// Turn taking: endpointing by patience, merging, keys, the per-turn measurements, filter words
// and the filler line of a slow tool.

const afterGreeting = (...steps: FarEndStep[]): FarEndStep[] => [
  { waitForAgentSilence: 300 },
  ...steps,
  { waitForAgentSilence: 300 },
  { hangup: true },
];

/** An STT whose partials include the word still being spoken, as streaming recognizers' do. */
function eagerSTT(clock: Clock): STT {
  return {
    name: 'eager',
    partials: true,
    stream() {
      const results = createAsyncQueue<STTResult>();
      const reader = createDataSpeechReader();
      let last = '';
      let heard = false;
      return {
        results,
        push(frame) {
          heard = true;
          reader.push(frame);
          if (reader.text && reader.text !== last) {
            last = reader.text;
            results.push({ kind: 'partial', text: last, at: clock.now() });
          }
        },
        flush() {
          if (!heard) return;
          results.push({ kind: 'final', text: reader.text, at: clock.now() });
          reader.reset();
          last = '';
          heard = false;
        },
        close: () => results.close(),
      };
    },
  };
}

async function replyLatency(patience: PatienceLevel, said: string, eager = false) {
  const clock = createManualClock();
  const { result } = await runScriptedCall({
    clock,
    ...(eager ? { stt: eagerSTT(clock) } : {}),
    settings: { patience },
    script: afterGreeting({ say: said }),
    replies: [{ text: 'Sure.' }],
  });
  const reply = result.quality.per_turn.find((t) => t.kind === 'reply');
  if (!reply) throw new Error('no reply turn');
  return reply;
}

describe('endpointing', () => {
  it('waits the patience delay after the end of speech before the turn starts', async () => {
    const low = await replyLatency('low', 'I would like to book a table');
    const medium = await replyLatency('medium', 'I would like to book a table');
    const high = await replyLatency('high', 'I would like to book a table');
    expect([low.endpointing_ms, medium.endpointing_ms, high.endpointing_ms]).toEqual([400, 800, 1400]);
    for (const [turn, delay] of [
      [low, 400],
      [medium, 800],
      [high, 1400],
    ] as const) {
      expect(turn.total_ms).toBeGreaterThanOrEqual(delay);
      expect(turn.total_ms).toBeLessThanOrEqual(delay + 40);
    }
  });

  it('takes the turn when the recognizer says the speaker finished, without waiting out the patience', async () => {
    const clock = createManualClock();
    const { result } = await runScriptedCall({
      clock,
      stt: { clock, endpointingMs: 300 },
      settings: { patience: 'high' },
      script: afterGreeting({ say: 'I would like to book a table' }),
      replies: [{ text: 'Sure.' }],
    });
    const reply = result.quality.per_turn.find((t) => t.kind === 'reply');
    // The VAD's speech end is confirmed 200 ms after the last speech frame; the recognizer's
    // 300 ms of silence come 100 ms later: far short of the high patience's 1400 ms.
    expect(reply?.endpointing_ms).toBeGreaterThanOrEqual(300);
    expect(reply?.endpointing_ms).toBeLessThanOrEqual(340);
  });

  it('answers a complete question (or a short yes/no) in half the time', async () => {
    const question = await replyLatency('medium', 'Are you open today?', true);
    const yes = await replyLatency('high', 'Yes please', true);
    const statement = await replyLatency('medium', 'I am open today', true);
    expect(question.endpointing_ms).toBe(400);
    expect(yes.endpointing_ms).toBe(700);
    expect(statement.endpointing_ms).toBe(800);
  });

  it('without partials, flushes at the speech end and decides the wait on the final', async () => {
    const decided = async (said: string) => {
      const clock = createManualClock();
      const { result } = await runScriptedCall({
        clock,
        stt: { partials: false },
        settings: { patience: 'medium' },
        script: afterGreeting({ say: said }),
        replies: [{ text: 'Sure.' }],
      });
      const reply = result.quality.per_turn.find((t) => t.kind === 'reply');
      if (!reply) throw new Error('no reply turn');
      return reply;
    };
    const finished = await decided('I would like to book a table');
    const trailing = await decided('I would like to book a');
    const filler = await decided('my number is um');
    expect([finished.endpointing_ms, trailing.endpointing_ms, filler.endpointing_ms]).toEqual([
      400, 1400, 1400,
    ]);
    // The recognizer ran during the wait: the turn starts as the wait ends.
    expect(finished.total_ms).toBeLessThanOrEqual(400 + 40);
  });

  it('without partials, a 600 ms pause after a function word keeps one turn', async () => {
    const { conversation, result } = await runScriptedCall({
      stt: { partials: false },
      settings: { patience: 'medium' },
      script: afterGreeting({ say: 'I want to book a' }, { wait: 600 }, { say: 'table for two' }),
      replies: [{ text: 'For when?' }],
    });
    expect(conversation.transcript().split('\n')).toEqual([
      'bot: Hello, this is Parley.',
      'human: I want to book a table for two',
      'bot: For when?',
    ]);
    expect(result.quality.turns).toBe(1);
  });

  it('a pause shorter than the patience delay keeps one turn', async () => {
    const { conversation } = await runScriptedCall({
      settings: { patience: 'medium' },
      script: afterGreeting({ say: 'I want to book' }, { wait: 500 }, { say: 'a table for two' }),
      replies: [{ text: 'For when?' }],
    });
    expect(conversation.transcript().split('\n')).toEqual([
      'bot: Hello, this is Parley.',
      'human: I want to book a table for two',
      'bot: For when?',
    ]);
  });

  it('speech that starts again before the final arrives merges into one turn', async () => {
    const { conversation, result } = await runScriptedCall({
      settings: { patience: 'low' },
      stt: { latencyMs: 600 },
      script: afterGreeting({ say: 'I want to book' }, { wait: 700 }, { say: 'a table' }),
      replies: [{ text: 'For how many?' }],
    });
    expect(conversation.transcript().split('\n')).toEqual([
      'bot: Hello, this is Parley.',
      'human: I want to book a table',
      'bot: For how many?',
    ]);
    expect(conversation.userTurns).toBe(1);
    expect(result.quality.turns).toBe(1);
  });
});

describe('measurements', () => {
  it('records each stage of a turn in order, with the latency percentiles', async () => {
    const { result } = await runScriptedCall({
      stt: { latencyMs: 120 },
      tts: { latencyMs: 60 },
      script: afterGreeting(
        { say: 'When do you open?' },
        { waitForAgentSilence: 300 },
        { say: 'And close?' },
      ),
      replies: [{ text: 'At nine. Thanks for asking.' }],
    });
    const replies = result.quality.per_turn.filter((t) => t.kind === 'reply');
    expect(replies).toHaveLength(2);
    for (const t of replies) {
      const marks = [
        t.speech_start_at,
        t.end_of_speech_at,
        t.endpoint_at,
        t.stt_final_at,
        t.model_first_token_at,
        t.first_sentence_at,
        t.tts_first_audio_at,
        t.first_frame_out_at,
      ];
      expect(marks.every((m) => m !== null)).toBe(true);
      expect([...(marks as number[])].sort((a, b) => a - b)).toEqual(marks);
      // The caller's line took time to say: it started well before it ended.
      expect((t.end_of_speech_at ?? 0) - (t.speech_start_at ?? 0)).toBeGreaterThan(200);
      expect(t.stt_ms).toBe(120);
      expect(t.tts_ms).toBe(60);
      expect(t.total_ms).toBe((t.first_frame_out_at ?? 0) - (t.end_of_speech_at ?? 0));
    }
    const totals = replies.map((t) => t.total_ms ?? 0).sort((a, b) => a - b);
    expect(result.quality.latency_ms).toEqual({ p50: totals[0], p95: totals[1] });
    expect(result.quality.turns).toBe(2);
    expect(result.quality.talk_ms.caller).toBeGreaterThan(0);
    expect(result.quality.talk_ms.agent).toBeGreaterThan(0);
    expect(result.quality.talk_ms.caller + result.quality.talk_ms.agent + result.quality.silence_ms).toBe(
      result.quality.duration_ms,
    );
    expect(JSON.parse(JSON.stringify(result.quality))).toEqual(result.quality);
  });
});

describe('keys', () => {
  it('collected keys reach the model as a user turn, ended by # or a pause', async () => {
    const clock = createManualClock();
    const llm = createScriptedLLM([{ text: 'Got it.' }], { clock, repeatLast: true });
    const { conversation } = await runScriptedCall({
      clock,
      replies: llm,
      script: afterGreeting({ dtmf: '123#' }, { waitForAgentSilence: 300 }, { dtmf: '42' }),
    });
    const userTexts = llm.requests.map((r) => r.messages.filter((m) => m.role === 'user').at(-1));
    expect(userTexts.map((m) => m?.content)).toEqual([
      '[The caller pressed the keys: 1 2 3]',
      '[The caller pressed the keys: 4 2]',
    ]);
    expect(conversation.userTurns).toBe(2);
  });
});

describe('what the agent says', () => {
  it('filter words are not spoken but stay in the transcript', async () => {
    const { leg, conversation } = await runScriptedCall({
      settings: { filterWords: ['um', 'basically'] },
      script: afterGreeting({ say: 'Hours?' }),
      replies: [{ text: 'Well, um, basically we open at nine.' }],
    });
    expect(leg.heardText(leg.saidAt[0]?.at)).toBe('Well, we open at nine.');
    expect(conversation.transcript()).toContain('bot: Well, um, basically we open at nine.');
  });

  it('a slow tool gets the filler line while it runs; a fast one does not', async () => {
    const clock = createManualClock();
    const tools = new ToolRegistry()
      .register({
        spec: { name: 'slow_lookup', description: 'Looks up an order.', parameters: { type: 'object' } },
        execute: async () => {
          await clock.sleep(3_000);
          return { result: { status: 'shipped' } };
        },
      })
      .register({
        spec: { name: 'fast_lookup', description: 'Looks up a price.', parameters: { type: 'object' } },
        execute: async () => {
          await clock.sleep(200);
          return { result: { price: 12 } };
        },
      });
    const { leg, conversation } = await runScriptedCall({
      clock,
      tools,
      settings: { toolWaitLine: 'One moment, please.' },
      script: afterGreeting({ say: 'Where is my order?' }, { wait: 6_000 }, { say: 'And the price?' }),
      replies: [
        { toolCalls: [{ name: 'slow_lookup', arguments: {} }] },
        { text: 'It has shipped.' },
        { toolCalls: [{ name: 'fast_lookup', arguments: {} }] },
        { text: 'It is twelve dollars.' },
      ],
    });
    const firstAsk = leg.saidAt[0]?.at ?? 0;
    const secondAsk = leg.saidAt[1]?.at ?? 0;
    expect(leg.heardText(firstAsk, secondAsk)).toBe('One moment, please. It has shipped.');
    expect(leg.heardText(secondAsk)).toBe('It is twelve dollars.');
    expect(conversation.transcript()).not.toContain('One moment');
    expect(conversation.transcript()).toContain('bot: It has shipped.');
  });
});

describe('the synthesizer and the audio out', () => {
  it('passes the voice and speed to the TTS; resamples its 8 kHz audio to the leg', async () => {
    const clock = createManualClock();
    const inner = createFakeTTS({ clock });
    const opened: TTSOptions[] = [];
    // A TTS at 8 kHz: the fake's data speech, one sample in two (its levels are flat per frame).
    const narrowband: TTS = {
      name: 'narrowband',
      sampleRate: 8000,
      stream(options = {}) {
        opened.push(options);
        const stream = inner.stream(options);
        return {
          ...stream,
          pushText: (t) => stream.pushText(t),
          flush: () => stream.flush(),
          endInput: () => stream.endInput(),
          close: () => stream.close(),
          audio: (async function* () {
            for await (const piece of stream.audio) {
              const samples = piece.frame.samples.filter((_, i) => i % 2 === 0);
              yield { ...piece, frame: { samples, sampleRate: 8000 as const, at: piece.frame.at } };
            }
          })(),
        };
      },
    };
    const { leg } = await runScriptedCall({
      clock,
      tts: narrowband,
      ttsVoice: 'kal16',
      settings: { voiceSpeed: 1.25 },
      script: afterGreeting({ say: 'Hi' }),
      replies: [{ text: 'Hello to you too.' }],
    });
    expect(opened.map((o) => [o.voice, o.speed])).toEqual([
      ['kal16', 1.25],
      ['kal16', 1.25],
    ]);
    expect(leg.played.every((p) => p.frame.sampleRate === 16000 && p.frame.samples.length === 320)).toBe(
      true,
    );
    expect(leg.heardText()).toBe('Hello, this is Parley. Hello to you too.');
  });

  it('mixes the background noise under the agent and still says the words', async () => {
    const { leg } = await runScriptedCall({
      settings: { backgroundNoise: { type: 'cafe', volume: 5 } },
      script: [{ waitForAgentSilence: 200 }, { hangup: true }],
    });
    expect(leg.heardText()).toBe('Hello, this is Parley.');
    const first = leg.played[0]?.frame.samples ?? new Int16Array();
    expect(new Set(first).size).toBeGreaterThan(10);
  });
});
