import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../media/index.ts';
import type { VAD, VADEvent, VADOptions } from '../speech/types.ts';
import { composeScene, dataClip, fliteClip, framesOf, ms, testAudioDir, type Scene } from './vad-audio.ts';

// The VAD contract (providers/speech/types.ts): what every VAD promises, checked the same way for
// each. The audio is real speech made by flite (kal16, 16 kHz) between stretches of digital
// silence, so the true speech boundaries are known; the same scenes go in at 8 kHz (sox) too. With
// `audio: 'data-speech'` the scenes are the fakes' data speech instead: for the fake loudness gate
// at its default level, and for any VAD that simulated calls with fake speech rely on.

export interface VADContractOptions {
  /** `flite`: synthesized sentences (default); `data-speech`: the fakes' flat-level frames. */
  audio?: 'flite' | 'data-speech';
  /** How far an event's `at` may be from the true speech boundary (default 120 ms). */
  boundaryToleranceMs?: number;
}

const RATE = 16000;
const FRAME_MS = 20;
const SENTENCES = [
  'Please book a table for two people tomorrow evening.',
  'The weather today is sunny and warm.',
];
const DATA_TEXTS = ['please book a table for two', 'the weather today'];

interface Run {
  events: VADEvent[];
  /** `probability` read after every push. */
  probabilities: number[];
  /** `probability` once every event was read. */
  finalProbability: number;
}

/** Pushes every frame at once (push only queues), closes, and reads the events to their end. */
async function run(vad: VAD, frames: AudioFrame[], options?: VADOptions): Promise<Run> {
  const stream = vad.stream(options);
  const events: VADEvent[] = [];
  const reading = (async () => {
    for await (const event of stream.events) events.push(event);
  })();
  const probabilities: number[] = [];
  for (const frame of frames) {
    stream.push(frame);
    probabilities.push(stream.probability);
  }
  stream.close();
  await reading;
  return { events, probabilities, finalProbability: stream.probability };
}

type Segment = { from: number; to: number; speechMs: number };

/** Checks the events alternate start/end (ending with an end) and pairs them. */
function segmentsOf(events: VADEvent[]): Segment[] {
  const segments: Segment[] = [];
  for (let i = 0; i < events.length; i += 2) {
    const start = events[i];
    const end = events[i + 1];
    expect(start?.kind, `event ${i} of ${JSON.stringify(events)}`).toBe('speech_start');
    expect(end?.kind, `event ${i + 1} of ${JSON.stringify(events)}`).toBe('speech_end');
    if (start?.kind !== 'speech_start' || end?.kind !== 'speech_end') break;
    expect(end.at).toBeGreaterThan(start.at);
    if (segments.length > 0) expect(start.at).toBeGreaterThan(segments.at(-1)!.to);
    segments.push({ from: start.at, to: end.at, speechMs: end.speechMs });
  }
  return segments;
}

function expectSegmentsAt(events: VADEvent[], truth: Scene['speech'], tolerance: number): void {
  const segments = segmentsOf(events);
  const found = JSON.stringify(segments);
  expect(segments.length, `segments ${found}, truth ${JSON.stringify(truth)}`).toBe(truth.length);
  segments.forEach((segment, i) => {
    const real = truth[i]!;
    expect(Math.abs(segment.from - real.from), `start of ${i}: ${found}`).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(segment.to - real.to), `end of ${i}: ${found}`).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(segment.speechMs - (segment.to - segment.from))).toBeLessThanOrEqual(1);
  });
}

function expectProbabilities(values: number[]): void {
  for (const p of values) {
    expect(Number.isFinite(p)).toBe(true);
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
  }
}

/** Registers the contract suite for one VAD; `makeVAD` is called once, before the tests. */
export function runVADContract(
  name: string,
  makeVAD: () => VAD | Promise<VAD>,
  options: VADContractOptions = {},
): void {
  const audioKind = options.audio ?? 'flite';
  const tolerance = options.boundaryToleranceMs ?? 120;

  describe(`VAD contract: ${name} (${audioKind} audio)`, () => {
    let dir = '';
    let vad: VAD;
    let twoSentences: Scene;
    let shortPause: Scene;
    let endsInSpeech: Scene;
    let burst: Scene;

    beforeAll(async () => {
      dir = testAudioDir();
      const [first, second] =
        audioKind === 'flite'
          ? SENTENCES.map((text, i) => fliteClip(dir, text, `sentence-${i}`))
          : DATA_TEXTS.map(dataClip);
      twoSentences = composeScene(dir, 'two', [1000, first!, 1500, second!, 1000]);
      shortPause = composeScene(dir, 'pause', [1000, first!, 500, second!, 1000]);
      // The first sentence cut at the end of the loudest frame of its second half: the stream ends
      // inside speech.
      const frameSize = (RATE * FRAME_MS) / 1000;
      const half = Math.floor(first!.samples.length / 2 / frameSize) * frameSize;
      let loudest = half;
      let loudestPower = -1;
      for (let i = half; i + frameSize <= first!.samples.length; i += frameSize) {
        let power = 0;
        for (let j = i; j < i + frameSize; j += 1) power += first!.samples[j]! ** 2;
        if (power > loudestPower) [loudest, loudestPower] = [i, power];
      }
      const cut = first!.samples.slice(0, loudest + frameSize);
      endsInSpeech = composeScene(dir, 'cut', [500, { samples: cut, from: first!.from, to: ms(cut.length) }]);
      // 60 ms of the loudest part of the sentence, alone in silence.
      const piece = first!.samples.slice(loudest, loudest + (60 * RATE) / 1000);
      burst = composeScene(dir, 'burst', [1000, { samples: piece, from: 0, to: 60 }, 1000]);
      vad = await makeVAD();
    });

    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('has a name', () => {
      expect(vad.name).toMatch(/^[a-z0-9-]+$/);
    });

    it('reports each sentence as one speech segment at its true boundaries (16 kHz)', async () => {
      const { events, probabilities } = await run(vad, framesOf(twoSentences.audio[16000], 16000));
      expectSegmentsAt(events, twoSentences.speech, tolerance);
      expectProbabilities(probabilities);
    });

    it('takes 8 kHz frames and reports the same segments', async () => {
      const { events, probabilities } = await run(vad, framesOf(twoSentences.audio[8000], 8000));
      expectSegmentsAt(events, twoSentences.speech, tolerance);
      expectProbabilities(probabilities);
    });

    it('reports nothing on digital silence, with a low probability', async () => {
      const silence = new Int16Array(RATE * 3);
      const { events, probabilities, finalProbability } = await run(vad, framesOf(silence, 16000));
      expect(events).toEqual([]);
      expectProbabilities(probabilities);
      expect(finalProbability).toBeLessThan(0.5);
    });

    it('gives a high probability inside speech', async () => {
      const { finalProbability, probabilities, events } = await run(
        vad,
        framesOf(endsInSpeech.audio[16000], 16000),
      );
      expectProbabilities(probabilities);
      expect(finalProbability).toBeGreaterThan(0.5);
      // Speech started near the truth and had not ended when the stream closed.
      expect(events.map((e) => e.kind)).toEqual(['speech_start']);
      expect(Math.abs(events[0]!.at - endsInSpeech.speech[0]!.from)).toBeLessThanOrEqual(tolerance);
    });

    it('does not split speech at a pause shorter than minSilenceMs, and does at a longer one', async () => {
      const frames = framesOf(shortPause.audio[16000], 16000);
      const [first, second] = shortPause.speech as [Scene['speech'][0], Scene['speech'][0]];
      const pause = second.from - first.to;
      const joined = await run(vad, frames, { minSilenceMs: pause + 300 });
      expectSegmentsAt(joined.events, [{ from: first.from, to: second.to }], tolerance);
      const split = await run(vad, frames, { minSilenceMs: Math.round(pause / 2) });
      expectSegmentsAt(split.events, shortPause.speech, tolerance);
    });

    it('ignores a burst shorter than minSpeechMs', async () => {
      const frames = framesOf(burst.audio[16000], 16000);
      const { events } = await run(vad, frames, { minSpeechMs: 300 });
      expect(events).toEqual([]);
    });

    it('close() ends the events iterator, also while speech is going on', async () => {
      const stream = vad.stream();
      const iterator = stream.events[Symbol.asyncIterator]();
      const next = iterator.next();
      const frames = framesOf(endsInSpeech.audio[16000], 16000);
      for (const frame of frames) stream.push(frame);
      stream.close();
      // Whatever was judged before close() may still come out; then the iterator ends.
      let result = await next;
      const kinds: string[] = [];
      while (!result.done) {
        kinds.push(result.value.kind);
        result = await iterator.next();
      }
      expect(kinds.every((k) => k === 'speech_start')).toBe(true);
      // Frames after close are ignored and do not throw.
      stream.push(frames[0]!);
      expect((await iterator.next()).done).toBe(true);
    });
  });
}
