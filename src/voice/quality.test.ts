import { describe, expect, it } from 'vitest';
import type { LinkStats } from '../media/index.ts';
import { percentile, voiceQuality, type TurnMarks } from './quality.ts';
import { emptyMarks } from './utterance.ts';

const T0 = 1_000_000;

function reply(endOfSpeech: number, out: number): TurnMarks {
  return {
    kind: 'reply',
    speechStartAt: T0 + endOfSpeech - 1_500,
    endOfSpeechAt: T0 + endOfSpeech,
    endpointAt: T0 + endOfSpeech + 800,
    sttFinalAt: T0 + endOfSpeech + 900,
    modelFirstTokenAt: T0 + endOfSpeech + 1_200,
    firstSentenceAt: T0 + endOfSpeech + 1_300,
    ttsFirstAudioAt: T0 + endOfSpeech + 1_450,
    firstFrameOutAt: T0 + out,
    interruptedAt: null,
    pitchAtEnd: 'fall',
  };
}

const BASE = {
  startedAt: T0,
  endedAt: T0 + 10_000,
  turns: [],
  interruptions: 0,
  callerSpeechMs: 0,
  agentSpeechMs: 0,
  droppedFrames: 0,
};

const BARE_LINK: LinkStats = {
  framesIn: 10,
  framesLost: 0,
  framesLate: 0,
  framesReordered: 0,
  framesRefused: 0,
  framesOut: 9,
  packetLoss: null,
  jitterMs: null,
};

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
      speech_start_at: 3_500,
      end_of_speech_at: 5_000,
      endpointing_ms: 800,
      stt_ms: 100,
      model_ms: 300,
      chunking_ms: 100,
      tts_ms: 150,
      playout_ms: 50,
      total_ms: 1_500,
      pitch_at_end: 'fall',
    });
    expect(q.per_turn[0]?.total_ms).toBeNull();
    expect(q.per_turn[0]?.pitch_at_end).toBeNull();
    expect(q.turns).toBe(3);
    expect(q.latency_ms).toEqual({ p50: 1_600, p95: 2_000 });
    expect(q.talk_ms).toEqual({ caller: 12_000, agent: 20_000 });
    expect(q.silence_ms).toBe(28_000);
    expect(q.interruptions).toBe(2);
    expect(q.dropped_frames).toBe(1);
    expect(JSON.parse(JSON.stringify(q))).toEqual(q);
  });

  it('has no loss, jitter or link counts when the leg reports none', () => {
    const q = voiceQuality({ ...BASE, link: null });
    expect(q.packet_loss).toBeNull();
    expect(q.jitter_ms).toBeNull();
    expect('link' in q).toBe(false);
    expect(voiceQuality(BASE)).toEqual(q);
  });

  it("takes the leg's link statistics: loss and jitter rounded, the frame counts as they are", () => {
    const q = voiceQuality({
      ...BASE,
      link: {
        framesIn: 2_997,
        framesLost: 4,
        framesLate: 1,
        framesReordered: 6,
        framesRefused: 2,
        framesOut: 1_500,
        packetLoss: 3 / 3_000,
        jitterMs: 2.345678,
      },
    });
    expect(q.packet_loss).toBe(0.001);
    expect(q.jitter_ms).toBe(2.3);
    expect(q.link).toEqual({
      frames_in: 2_997,
      frames_lost: 4,
      frames_late: 1,
      frames_reordered: 6,
      frames_refused: 2,
      frames_out: 1_500,
    });
    expect(JSON.parse(JSON.stringify(q))).toEqual(q);
    // A transport without sequence numbers or timestamps still counts frames.
    const bare = voiceQuality({ ...BASE, link: BARE_LINK });
    expect(bare).toMatchObject({
      packet_loss: null,
      jitter_ms: null,
      link: { frames_in: 10, frames_out: 9 },
    });
    const tiny = voiceQuality({ ...BASE, link: { ...BARE_LINK, packetLoss: 0.00004, jitterMs: 0.04 } });
    expect(tiny).toMatchObject({ packet_loss: 0, jitter_ms: 0 });
  });

  it('nearest-rank percentiles, null when empty', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(percentile([7], 95)).toBe(7);
  });
});
