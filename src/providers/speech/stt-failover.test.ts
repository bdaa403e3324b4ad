import { describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../../core/index.ts';
import { dataSpeechFrames, type AudioFrame } from '../../media/index.ts';
import { createBrokenSTT } from '../testing/broken-speech.ts';
import { createFakeSTT } from '../testing/fake-speech.ts';
import { runSTTContract, type STTContractAudio } from '../testing/stt-contract.ts';
import type { SpeechSwitch } from './speech-switch.ts';
import { createFailoverSTT } from './stt-failover.ts';
import type { STT, STTResult } from './types.ts';

const audio: STTContractAudio = {
  speech: (text, rate) => {
    const frames = dataSpeechFrames(text);
    if (rate === 16000) return frames;
    return frames.map((f) => ({ ...f, samples: f.samples.filter((_, i) => i % 2 === 0), sampleRate: 8000 }));
  },
  sentences: ['I would like to book a table for two.', 'Yes, Tuesday works for me.'],
  maxWordErrorRate: 0,
  maxWordErrorRate8k: 0,
};

// The wrapper is an STT like any other: alone, and with a first provider that fails at once or
// in the middle of the first utterance (the replacement must still give every word).
runSTTContract(
  'failover (one provider)',
  () => createFailoverSTT({ chain: [createFakeSTT()], clock: systemClock }),
  audio,
);
runSTTContract(
  'failover (first refuses)',
  () =>
    createFailoverSTT({
      chain: [createBrokenSTT(createFakeSTT(), { kind: 'refuse' }), createFakeSTT()],
      clock: systemClock,
    }),
  audio,
);
runSTTContract(
  'failover (first drops mid-utterance)',
  () =>
    createFailoverSTT({
      chain: [createBrokenSTT(createFakeSTT(), { kind: 'drop', afterFrames: 20 }), createFakeSTT()],
      clock: systemClock,
    }),
  audio,
);

/** Reads results as they come. */
function collect(results: AsyncIterable<STTResult>) {
  const got: STTResult[] = [];
  const state = { error: null as unknown, ended: false };
  const done = (async () => {
    try {
      for await (const r of results) got.push(r);
    } catch (error) {
      state.error = error;
    } finally {
      state.ended = true;
    }
  })();
  return { got, state, done, finals: () => got.filter((r) => r.kind === 'final').map((r) => r.text) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const speech = (text: string): AudioFrame[] => dataSpeechFrames(text);

describe('STT failover', () => {
  it('drops a provider that gives no final within the bound; the replacement hears the whole utterance', async () => {
    const clock = createManualClock();
    const switches: SpeechSwitch[] = [];
    const stalled = createBrokenSTT(createFakeSTT(), { kind: 'stall' }, 'hosted');
    const backup = createFakeSTT({ clock });
    const stt = createFailoverSTT({
      chain: [stalled, backup],
      clock,
      finalTimeoutMs: 1500,
      onSwitch: (s) => switches.push(s),
    });
    expect(stt.name).toBe('hosted>fake');
    const stream = stt.stream();
    const results = collect(stream.results);
    for (const frame of speech('I own my home')) stream.push(frame);
    stream.flush();
    await settle();
    await clock.tick(1499);
    expect(results.finals()).toEqual([]);
    expect(switches).toEqual([]);
    await clock.tick(1);
    await settle();
    expect(switches).toEqual([
      {
        kind: 'stt',
        from: 'hosted',
        to: 'fake',
        reason: 'no final result within 1500 ms of the end of speech',
        at: clock.now(),
      },
    ]);
    expect(results.finals()).toEqual(['I own my home']);
    // The rest of the stream is served by the replacement alone.
    for (const frame of speech('about two hundred dollars')) stream.push(frame);
    stream.flush();
    await settle();
    expect(results.finals()).toEqual(['I own my home', 'about two hundred dollars']);
    expect(stalled.opened).toBe(1);
    stream.close();
    await results.done;
    expect(results.state.error).toBeNull();
  });

  it('replays only what was not answered: a failure in the second utterance loses none of it and repeats none of the first', async () => {
    const clock = createManualClock();
    const first = createFakeSTT({ clock });
    const frames = speech('yes that works').length;
    const dropping = createBrokenSTT(first, { kind: 'drop', afterFrames: frames + 5 }, 'hosted');
    const switches: SpeechSwitch[] = [];
    const stt = createFailoverSTT({
      chain: [dropping, createFakeSTT({ clock })],
      clock,
      onSwitch: (s) => switches.push(s),
    });
    const stream = stt.stream();
    const results = collect(stream.results);
    for (const frame of speech('yes that works')) stream.push(frame);
    stream.flush();
    await settle();
    expect(results.finals()).toEqual(['yes that works']);
    for (const frame of speech('call me on tuesday')) stream.push(frame);
    await settle();
    expect(switches.map((s) => [s.from, s.to, s.reason])).toEqual([
      ['hosted', 'fake', 'hosted dropped its socket'],
    ]);
    stream.flush();
    await settle();
    expect(results.finals()).toEqual(['yes that works', 'call me on tuesday']);
    stream.close();
    await results.done;
  });

  it("keeps a dropped provider out of the wrapper's later streams (the rest of the call)", async () => {
    const clock = createManualClock();
    const refusing = createBrokenSTT(createFakeSTT(), { kind: 'refuse' }, 'hosted');
    const stt = createFailoverSTT({ chain: [refusing, createFakeSTT({ clock })], clock });
    for (const text of ['first line', 'second line']) {
      const stream = stt.stream();
      const results = collect(stream.results);
      for (const frame of speech(text)) stream.push(frame);
      stream.flush();
      await settle();
      expect(results.finals()).toEqual([text]);
      stream.close();
      await results.done;
    }
    expect(refusing.opened).toBe(1);
  });

  it("opens each provider's stream at the first frame's rate (telephone audio stays 8 kHz)", async () => {
    const clock = createManualClock();
    const asked: (number | undefined)[] = [];
    const recording = (inner: STT): STT => ({
      ...inner,
      stream: (o) => {
        asked.push(o?.sampleRate);
        return inner.stream(o);
      },
    });
    const stt = createFailoverSTT({
      chain: [
        recording(createBrokenSTT(createFakeSTT(), { kind: 'refuse' })),
        recording(createFakeSTT({ clock })),
      ],
      clock,
    });
    const stream = stt.stream();
    const results = collect(stream.results);
    expect(asked).toEqual([]);
    for (const frame of speech('yes'))
      stream.push({ ...frame, samples: frame.samples.filter((_, i) => i % 2 === 0), sampleRate: 8000 });
    stream.flush();
    await settle();
    expect(asked).toEqual([8000, 8000]);
    stream.close();
    await results.done;
  });

  it('answers every pending flush in order after a switch', async () => {
    const clock = createManualClock();
    const stt = createFailoverSTT({
      chain: [createBrokenSTT(createFakeSTT(), { kind: 'stall' }), createFakeSTT({ clock })],
      clock,
    });
    const stream = stt.stream();
    const results = collect(stream.results);
    for (const frame of speech('one two')) stream.push(frame);
    stream.flush();
    for (const frame of speech('three four')) stream.push(frame);
    stream.flush();
    await clock.tick(1500);
    await settle();
    expect(results.finals()).toEqual(['one two', 'three four']);
    stream.close();
    await results.done;
  });

  it('fails the stream with a retryable stt_failed when the last provider fails too', async () => {
    const clock = createManualClock();
    const stt = createFailoverSTT({
      chain: [
        createBrokenSTT(createFakeSTT(), { kind: 'stall' }, 'a'),
        createBrokenSTT(createFakeSTT(), { kind: 'drop', afterFrames: 3 }, 'b'),
      ],
      clock,
    });
    const stream = stt.stream();
    const results = collect(stream.results);
    for (const frame of speech('hello')) stream.push(frame);
    stream.flush();
    await settle();
    expect(results.state.ended).toBe(false);
    await clock.tick(1500);
    await results.done;
    expect(results.state.error).toMatchObject({
      code: 'stt_failed',
      retryable: true,
      message: 'b dropped its socket',
    });
  });

  it('leaves a stalled last resort to its user: no bound of its own once nobody can take over', async () => {
    const clock = createManualClock();
    const stt = createFailoverSTT({
      chain: [
        createBrokenSTT(createFakeSTT(), { kind: 'refuse' }, 'a'),
        createBrokenSTT(createFakeSTT(), { kind: 'stall' }, 'b'),
      ],
      clock,
    });
    const stream = stt.stream();
    const results = collect(stream.results);
    for (const frame of speech('hello')) stream.push(frame);
    stream.flush();
    await clock.tick(60_000);
    expect(results.state.ended).toBe(false);
    expect(clock.pendingSleeps).toBe(0);
    stream.close();
    await results.done;
    expect(results.state.error).toBeNull();
  });

  it('ends quietly on close: no timer fires a switch afterwards', async () => {
    const clock = createManualClock();
    const switches: SpeechSwitch[] = [];
    const stt = createFailoverSTT({
      chain: [createBrokenSTT(createFakeSTT(), { kind: 'stall' }), createFakeSTT({ clock })],
      clock,
      onSwitch: (s) => switches.push(s),
    });
    const stream = stt.stream();
    const results = collect(stream.results);
    for (const frame of speech('hello there')) stream.push(frame);
    stream.flush();
    stream.close();
    await results.done;
    await clock.tick(5000);
    expect(switches).toEqual([]);
    expect(results.state.error).toBeNull();
    expect(clock.pendingSleeps).toBe(0);
  });
});
