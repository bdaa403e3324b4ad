import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createAsyncQueue, createManualClock } from '../core/index.ts';
import { dataSpeechFrames, samplesPerFrame, type AudioFrame } from '../media/index.ts';
import { createEnergyVAD, type STT, type STTResult, type VAD } from '../providers/index.ts';
import { createFakeSTT, createFakeVAD, espeakClip, testAudioDir } from '../providers/testing/index.ts';
import { createListener, type HeardTurn } from './listener.ts';
import { PRE_ROLL_MS, VAD_LAG_MS } from './limits.ts';
import { createTimers } from './timers.ts';

// The caller's side: what reaches the STT when VAD's speech start is read late, after a burst of
// frames (a client's audio held up, then delivered at once, is pushed before the event is read).

const SILENCE = new Int16Array(samplesPerFrame(16000));

function listen(patience: 'low' | 'medium' = 'low', speech?: { vad: VAD; stt: STT }) {
  const clock = createManualClock();
  const turns: HeardTurn[] = [];
  const failures: Error[] = [];
  const listener = createListener({
    vad: speech?.vad ?? createFakeVAD(),
    stt: speech?.stt ?? createFakeSTT({ clock }),
    clock,
    timers: createTimers(clock, (err) => failures.push(err as Error)),
    patience,
    keywords: [],
    signal: new AbortController().signal,
    events: {
      speechStart: () => undefined,
      speechEnd: () => undefined,
      partial: () => undefined,
      turn: (turn) => turns.push(turn),
      nothing: () => undefined,
      failure: (err) => failures.push(err),
    },
  });
  return { clock, listener, turns, failures };
}

/** Silence, the line as data speech, then silence: 20 ms apart from `at`. */
function scene(line: string, at: number): AudioFrame[] {
  const before = Array.from({ length: 10 }, (_, i) => ({
    samples: SILENCE,
    sampleRate: 16000 as const,
    at: at + i * 20,
  }));
  const speech = dataSpeechFrames(line, at + 200);
  const from = at + 200 + speech.length * 20;
  const after = Array.from({ length: 20 }, (_, i) => ({
    samples: SILENCE,
    sampleRate: 16000 as const,
    at: from + i * 20,
  }));
  return [...before, ...speech, ...after];
}

describe('listener', () => {
  const line = 'Book a table';

  it('gives the STT the whole line when a burst of frames came before the speech start was read', async () => {
    const { clock, listener, turns, failures } = listen();
    const frames = scene(line, clock.now());
    expect(frames.length * 20).toBeLessThanOrEqual(PRE_ROLL_MS + VAD_LAG_MS);
    for (const frame of frames) listener.frame(frame); // no await: VAD's events wait
    await clock.tick(3_000);
    expect(failures).toEqual([]);
    expect(turns.map((t) => t.text)).toEqual([line]);
    listener.close();
  });
});

/** A recognizer without partials that answers each flush with the next of `finals`. */
function scriptedFinals(finals: string[]): STT {
  return {
    name: 'scripted',
    partials: false,
    stream() {
      const results = createAsyncQueue<STTResult>();
      return {
        push: () => undefined,
        flush: () => results.push({ kind: 'final', text: finals.shift() ?? '', at: 0 }),
        results,
        close: () => results.close(),
      };
    },
  };
}

describe('listener: the pitch at a pause', () => {
  const dir = testAudioDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const first = 'I am calling about my account.';
  const second = 'I was charged twice for the same order.';

  /** Each line said by espeak-ng in real time (frames on the manual clock), 1.5 s apart. */
  async function call(lines: Int16Array[], finals: string[]) {
    const heard = listen('medium', { vad: createEnergyVAD(), stt: scriptedFinals(finals) });
    const quiet = new Int16Array(1500 * 16);
    const audio = [quiet, ...lines.flatMap((line) => [line, quiet])];
    for (const samples of audio) {
      for (let i = 0; i + 320 <= samples.length; i += 320) {
        heard.listener.frame({
          samples: samples.slice(i, i + 320),
          sampleRate: 16000,
          at: heard.clock.now(),
        });
        await heard.clock.tick(20);
      }
    }
    expect(heard.failures).toEqual([]);
    heard.listener.close();
    return heard.turns;
  }

  it('holds the turn at a level pause once the caller has ended a line on a falling pitch', async () => {
    const paused = espeakClip(dir, second, 'paused', { afterWords: 4, ms: 600 }).samples;
    const turns = await call(
      [espeakClip(dir, first, 'first').samples, paused],
      ['I am calling about my account', 'I was charged twice', 'for the same order'],
    );
    expect(turns.map((t) => t.text)).toEqual([
      'I am calling about my account',
      'I was charged twice for the same order',
    ]);
    // A line that falls at its end still gets the short wait (medium: 400 ms).
    expect(turns.map((t) => t.endpointAt - t.endOfSpeechAt)).toEqual([400, 400]);
    expect(turns.map((t) => t.pitchAtEnd)).toEqual(['fall', 'fall']);
  });

  it("decides a caller's first line on its words alone: a finished phrase gets the short wait", async () => {
    const paused = espeakClip(dir, second, 'paused', { afterWords: 4, ms: 600 }).samples;
    const turns = await call([paused], ['I was charged twice', 'for the same order']);
    expect(turns.map((t) => t.text)).toEqual(['I was charged twice', 'for the same order']);
  });
});
