import { describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../../core/index.ts';
import { createDataSpeechReader, dataSpeechFrames } from '../../media/index.ts';
import { createBrokenTTS } from '../testing/broken-speech.ts';
import { createFakeTTS } from '../testing/fake-speech.ts';
import { runTTSContract } from '../testing/tts-contract.ts';
import type { SpeechSwitch } from './speech-switch.ts';
import { createFailoverTTS } from './tts-failover.ts';
import type { SynthesizedAudio } from './types.ts';

// The wrapper is a TTS like any other: alone, and with a first provider that refuses or drops in
// the middle of its first segment.
runTTSContract(
  'failover (one provider)',
  () => createFailoverTTS({ chain: [{ tts: createFakeTTS() }], clock: systemClock }),
  {
    speed: false,
  },
);
runTTSContract(
  'failover (first refuses)',
  () =>
    createFailoverTTS({
      chain: [{ tts: createBrokenTTS(createFakeTTS(), { kind: 'refuse' }) }, { tts: createFakeTTS() }],
      clock: systemClock,
    }),
  { speed: false },
);
runTTSContract(
  'failover (first drops mid-segment)',
  () =>
    createFailoverTTS({
      chain: [
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'drop', afterFrames: 10 }) },
        { tts: createFakeTTS() },
      ],
      clock: systemClock,
    }),
  { speed: false },
);

function collect(audio: AsyncIterable<SynthesizedAudio>) {
  const got: SynthesizedAudio[] = [];
  const state = { error: null as unknown, ended: false };
  const done = (async () => {
    try {
      for await (const piece of audio) got.push(piece);
    } catch (error) {
      state.error = error;
    } finally {
      state.ended = true;
    }
  })();
  return { got, state, done };
}

/** What data speech the frames say. */
function heard(pieces: SynthesizedAudio[]): string {
  const reader = createDataSpeechReader();
  for (const p of pieces) reader.push(p.frame);
  return reader.text;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TTS failover', () => {
  it('drops a provider that gives no audio within the bound; the replacement says the waiting text in its own voice', async () => {
    const clock = createManualClock();
    const switches: SpeechSwitch[] = [];
    const stalled = createBrokenTTS(createFakeTTS(), { kind: 'stall' }, 'hosted');
    const backup = createBrokenTTS(createFakeTTS({ clock }), { kind: 'drop', afterFrames: 1e9 }, 'offline');
    const tts = createFailoverTTS({
      chain: [
        { tts: stalled, voice: 'rachel' },
        { tts: backup, voice: 'kal16' },
      ],
      clock,
      audioTimeoutMs: 1500,
      onSwitch: (s) => switches.push(s),
    });
    const stream = tts.stream({ voice: 'ignored' });
    const out = collect(stream.audio);
    stream.pushText('Hello there.');
    stream.flush();
    stream.pushText('How are you');
    await clock.tick(1499);
    expect(out.got).toEqual([]);
    await clock.tick(1);
    await settle();
    expect(switches).toEqual([
      {
        kind: 'tts',
        from: 'hosted',
        to: 'offline',
        reason: 'no audio within 1500 ms of the text',
        at: clock.now(),
      },
    ]);
    expect(stalled.voices).toEqual(['rachel']);
    expect(backup.voices).toEqual(['kal16']);
    stream.pushText(' today?');
    stream.endInput();
    await out.done;
    expect(out.state.error).toBeNull();
    expect(out.got.filter((p) => p.text).map((p) => [p.segment, p.text])).toEqual([
      [0, 'Hello there.'],
      [1, 'How are you today?'],
    ]);
    expect(heard(out.got.filter((p) => p.segment === 0))).toBe('Hello there.');
    expect(heard(out.got.filter((p) => p.segment === 1))).toBe('How are you today?');
    expect(out.got.filter((p) => p.last).map((p) => p.segment)).toEqual([0, 1]);
  });

  it('restarts the segment in progress on the replacement, under the same number and without its text again', async () => {
    const clock = createManualClock();
    const switches: SpeechSwitch[] = [];
    const tts = createFailoverTTS({
      chain: [
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'drop', afterFrames: 6 }, 'hosted') },
        { tts: createFakeTTS() },
      ],
      clock,
      onSwitch: (s) => switches.push(s),
    });
    const stream = tts.stream();
    const out = collect(stream.audio);
    stream.pushText('I can book you in on Tuesday.');
    stream.flush();
    stream.endInput();
    await out.done;
    expect(out.state.error).toBeNull();
    expect(switches.map((s) => s.reason)).toEqual(['hosted dropped its socket']);
    const whole = dataSpeechFrames('I can book you in on Tuesday.').length;
    expect(out.got).toHaveLength(6 + whole);
    expect(out.got.every((p) => p.segment === 0)).toBe(true);
    expect(out.got.filter((p) => p.text).map((p) => p.text)).toEqual(['I can book you in on Tuesday.']);
    expect(out.got[0]?.text).toBeDefined();
    expect(heard(out.got.slice(6))).toBe('I can book you in on Tuesday.');
    expect(out.got.filter((p) => p.last)).toHaveLength(1);
    expect(out.got.at(-1)?.last).toBe(true);
  });

  it("keeps a dropped provider out of the wrapper's later streams (the rest of the call)", async () => {
    const clock = createManualClock();
    const dropping = createBrokenTTS(createFakeTTS(), { kind: 'drop', afterFrames: 3 }, 'hosted');
    const backup = createBrokenTTS(createFakeTTS(), { kind: 'drop', afterFrames: 1e9 }, 'offline');
    const tts = createFailoverTTS({ chain: [{ tts: dropping }, { tts: backup }], clock });
    for (const text of ['First reply.', 'Second reply.']) {
      const stream = tts.stream();
      const out = collect(stream.audio);
      stream.pushText(text);
      stream.endInput();
      await out.done;
      expect(out.state.error).toBeNull();
    }
    expect(dropping.voices).toHaveLength(1);
    expect(backup.voices).toHaveLength(2);
  });

  it('does not repeat segments already played when a later one fails', async () => {
    const clock = createManualClock();
    const first = dataSpeechFrames('One.').length;
    const tts = createFailoverTTS({
      chain: [
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'drop', afterFrames: first + 2 }) },
        { tts: createFakeTTS() },
      ],
      clock,
    });
    const stream = tts.stream();
    const out = collect(stream.audio);
    stream.pushText('One.');
    stream.flush();
    stream.pushText('Two.');
    stream.flush();
    stream.endInput();
    await out.done;
    expect(heard(out.got.filter((p) => p.segment === 0))).toBe('One.');
    expect(out.got.filter((p) => p.segment === 0)).toHaveLength(first);
    expect(heard(out.got.filter((p) => p.segment === 1).slice(2))).toBe('Two.');
    expect(out.got.filter((p) => p.text).map((p) => p.text)).toEqual(['One.', 'Two.']);
  });

  it('fails the audio with tts_failed when the last provider fails too', async () => {
    const clock = createManualClock();
    const tts = createFailoverTTS({
      chain: [
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'stall' }) },
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'refuse' }, 'last') },
      ],
      clock,
    });
    const stream = tts.stream();
    const out = collect(stream.audio);
    stream.pushText('Hello.');
    stream.flush();
    await settle();
    expect(out.state.ended).toBe(false);
    await clock.tick(1500);
    await out.done;
    expect(out.state.error).toMatchObject({ code: 'tts_failed', message: 'last refused the connection' });
  });

  it('leaves a stalled last resort to its user: no bound of its own once nobody can take over', async () => {
    const clock = createManualClock();
    const tts = createFailoverTTS({
      chain: [
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'refuse' }) },
        { tts: createBrokenTTS(createFakeTTS(), { kind: 'stall' }) },
      ],
      clock,
    });
    const stream = tts.stream();
    const out = collect(stream.audio);
    stream.pushText('Hello.');
    stream.flush();
    await clock.tick(60_000);
    expect(out.state.ended).toBe(false);
    expect(clock.pendingSleeps).toBe(0);
    stream.close();
    await out.done;
    expect(out.state.error).toBeNull();
  });

  it('waits for no audio while no text is waiting, and leaves no timer after close', async () => {
    const clock = createManualClock();
    const switches: SpeechSwitch[] = [];
    const tts = createFailoverTTS({
      chain: [{ tts: createBrokenTTS(createFakeTTS(), { kind: 'stall' }) }, { tts: createFakeTTS() }],
      clock,
      onSwitch: (s) => switches.push(s),
    });
    const stream = tts.stream();
    const out = collect(stream.audio);
    stream.pushText('not flushed yet');
    await clock.tick(10_000);
    expect(switches).toEqual([]);
    stream.flush();
    stream.close();
    await out.done;
    await clock.tick(5000);
    expect(switches).toEqual([]);
    expect(clock.pendingSleeps).toBe(0);
  });
});
