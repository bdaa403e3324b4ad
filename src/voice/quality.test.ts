import { describe, expect, it } from 'vitest';
import { percentile, voiceQuality, type TurnMarks } from './quality.ts';
import { emptyMarks } from './utterance.ts';

const T0 = 1_000_000;

function reply(endOfSpeech: number, out: number): TurnMarks {
  return {
    kind: 'reply',
    endOfSpeechAt: T0 + endOfSpeech,
    endpointAt: T0 + endOfSpeech + 800,
    sttFinalAt: T0 + endOfSpeech + 900,
    modelFirstTokenAt: T0 + endOfSpeech + 1_200,
    firstSentenceAt: T0 + endOfSpeech + 1_300,
    ttsFirstAudioAt: T0 + endOfSpeech + 1_450,
    firstFrameOutAt: T0 + out,
    interruptedAt: null,
  };
}

describe('voice quality', () => {
  it('derives each stage and the end-of-speech to first-frame percentiles of replies', () => {
    const q = voiceQuality({
      startedAt: T0,
      endedAt: T0 + 60_000,
      turns: [
        { ...emptyMarks('greeting'), firstFrameOutAt: T0 + 20 },
        reply(5_000, 6_500),
        reply(10_000, 12_000),
        reply(20_000, 21_600),
        { ...emptyMarks('reply'), modelFirstTokenAt: T0 + 30_000, firstFrameOutAt: T0 + 30_100 },
      ],
      interruptions: 2,
      callerSpeechMs: 12_000,
      agentSpeechMs: 20_000,
      droppedFrames: 1,
    });
    expect(q.per_turn[1]).toMatchObject({
      turn: 2,
      kind: 'reply',
      end_of_speech_at: 5_000,
      endpointing_ms: 800,
      stt_ms: 100,
      model_ms: 300,
      chunking_ms: 100,
      tts_ms: 150,
      playout_ms: 50,
      total_ms: 1_500,
    });
    expect(q.per_turn[0]?.total_ms).toBeNull();
    expect(q.turns).toBe(3);
    expect(q.latency_ms).toEqual({ p50: 1_600, p95: 2_000 });
    expect(q.talk_ms).toEqual({ caller: 12_000, agent: 20_000 });
    expect(q.silence_ms).toBe(28_000);
    expect(q.interruptions).toBe(2);
    expect(q.dropped_frames).toBe(1);
    expect(JSON.parse(JSON.stringify(q))).toEqual(q);
  });

  it('nearest-rank percentiles, null when empty', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(percentile([7], 95)).toBe(7);
  });
});
