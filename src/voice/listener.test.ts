import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/index.ts';
import { dataSpeechFrames, samplesPerFrame, type AudioFrame } from '../media/index.ts';
import { createFakeSTT, createFakeVAD } from '../providers/testing/index.ts';
import { createListener, type HeardTurn } from './listener.ts';
import { PRE_ROLL_MS, VAD_LAG_MS } from './limits.ts';
import { createTimers } from './timers.ts';

// The caller's side: what reaches the STT when VAD's speech start is read late, after a burst of
// frames (a client's audio held up, then delivered at once, is pushed before the event is read).

const SILENCE = new Int16Array(samplesPerFrame(16000));

function listen() {
  const clock = createManualClock();
  const turns: HeardTurn[] = [];
  const failures: Error[] = [];
  const listener = createListener({
    vad: createFakeVAD(),
    stt: createFakeSTT({ clock }),
    clock,
    timers: createTimers(clock, (err) => failures.push(err as Error)),
    patience: 'low',
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
