import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock, systemClock } from '../../core/index.ts';
import { dataSpeechFrames, type AudioFrame } from '../../media/index.ts';
import { createFakeDeepgram, type FakeDeepgram } from '../../../test/deepgram-server/index.ts';
import { runSTTContract, type STTContractAudio } from '../testing/stt-contract.ts';
import { createDeepgramSTT, type DeepgramSTTOptions } from './stt-deepgram.ts';
import type { STTResult, STTStream } from './types.ts';

// The Deepgram adapter against a local fake of Deepgram's live-transcription WebSocket
// (test/deepgram-server): the contract every STT passes, then Deepgram's own protocol (rate,
// keywords, Finalize, KeepAlive, CloseStream) and every failure a hosted vendor shows.

const KEY = 'dg-test-key-0123456789';
let vendor: FakeDeepgram;

beforeAll(async () => {
  vendor = await createFakeDeepgram({ apiKey: KEY });
});
afterAll(() => vendor.close());

const make = (extra: Partial<DeepgramSTTOptions> = {}) =>
  createDeepgramSTT({ apiKey: KEY, baseUrl: vendor.baseUrl, clock: systemClock, ...extra });

const at8k = (frames: AudioFrame[]): AudioFrame[] =>
  frames.map((f) => ({ ...f, samples: f.samples.filter((_, i) => i % 2 === 0), sampleRate: 8000 }));

const audio: STTContractAudio = {
  speech: (text, rate) => (rate === 16000 ? dataSpeechFrames(text) : at8k(dataSpeechFrames(text))),
  sentences: ['I would like to book a table for two.', 'Yes, Tuesday works for me.'],
  maxWordErrorRate: 0,
  maxWordErrorRate8k: 0,
};

runSTTContract('deepgram', () => make(), audio);

/** Reads a stream's results as they come. */
function collect(stream: STTStream) {
  const got: STTResult[] = [];
  const state: { error: (Error & { code?: string; retryable?: boolean }) | null } = { error: null };
  const done = (async () => {
    try {
      for await (const r of stream.results) got.push(r);
    } catch (err) {
      state.error = err as Error;
    }
  })();
  return { got, state, done, finals: () => got.filter((r) => r.kind === 'final').map((r) => r.text) };
}

const until = async (what: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

function say(stream: STTStream, text: string, rate: 8000 | 16000 = 16000) {
  const frames = rate === 16000 ? dataSpeechFrames(text) : at8k(dataSpeechFrames(text));
  for (const frame of frames) stream.push(frame);
}

describe('Deepgram adapter', () => {
  it('opens at the stream rate (8 kHz stays 8 kHz), with the model, language and keywords asked', async () => {
    vendor.behave({});
    const before = vendor.connections.length;
    const stream = make().stream({
      sampleRate: 8000,
      language: 'en-GB',
      keywords: ['Parley', 'solar panels'],
    });
    const results = collect(stream);
    say(stream, 'book a table', 8000);
    stream.flush();
    await until(() => results.finals().length === 1);
    stream.close();
    await results.done;
    expect(results.finals()).toEqual(['book a table']);
    const conn = vendor.connections[before]!;
    expect(conn.query).toMatchObject({
      sample_rate: '8000',
      encoding: 'linear16',
      model: 'nova-3',
      language: 'en-GB',
      interim_results: 'true',
      vad_events: 'true',
    });
    expect(conn.terms).toEqual(['Parley', 'solar panels']);
    expect(conn.audioBytes).toBe(dataSpeechFrames('book a table').length * 320);
    await until(() => conn.closed);
    expect(conn.controls.map((c) => c.type)).toEqual(['Finalize', 'CloseStream']);
  });

  it('takes older models with keywords and an intensifier', async () => {
    const before = vendor.connections.length;
    const stream = make({ model: 'nova-2' }).stream({ keywords: ['Parley'] });
    const results = collect(stream);
    say(stream, 'hello');
    stream.flush();
    await until(() => results.finals().length === 1);
    stream.close();
    await results.done;
    expect(vendor.connections[before]!.terms).toEqual(['Parley:2']);
  });

  it("gives one final per flush, joining Deepgram's own finals since the last one", async () => {
    const stream = make().stream();
    const results = collect(stream);
    say(stream, 'yes I own my home');
    // 400 ms of silence: Deepgram's endpointing finalizes on its own before our flush.
    for (let i = 0; i < 20; i += 1) stream.push({ samples: new Int16Array(320), sampleRate: 16000, at: 0 });
    say(stream, 'about two hundred');
    stream.flush();
    await until(() => results.finals().length === 1);
    expect(results.finals()).toEqual(['yes I own my home about two hundred']);
    expect(results.got.some((r) => r.kind === 'partial')).toBe(true);
    // Deepgram's speech_final after the silence, then its UtteranceEnd, say the speaker finished:
    // the session may take the turn without waiting out its patience.
    expect(results.got.filter((r) => r.endOfUtterance).map((r) => [r.kind, r.text])).toEqual([
      ['partial', 'yes I own my home'],
      ['partial', 'yes I own my home'],
    ]);
    stream.close();
    await results.done;
  });

  it('answers a flush Deepgram does not answer (all finalized already) with the finals so far', async () => {
    const clock = createManualClock();
    vendor.behave({ finalizeOnlyWithAudio: true });
    try {
      const stream = make({ clock, finalizeTimeoutMs: 600 }).stream();
      const results = collect(stream);
      say(stream, 'yes I own my home');
      // Deepgram's endpointing finalizes the line on its own; our Finalize then gets no answer.
      for (let i = 0; i < 20; i += 1) stream.push({ samples: new Int16Array(320), sampleRate: 16000, at: 0 });
      await until(() => results.got.some((r) => r.endOfUtterance));
      stream.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(results.finals()).toEqual([]);
      await clock.tick(600);
      await until(() => results.finals().length === 1);
      expect(results.finals()).toEqual(['yes I own my home']);
      stream.close();
      await results.done;
      expect(results.state.error).toBeNull();
    } finally {
      vendor.behave({});
    }
  });

  it('keeps the socket alive while no audio flows', async () => {
    const clock = createManualClock();
    const before = vendor.connections.length;
    const stream = make({ clock, keepAliveMs: 4000 }).stream();
    const results = collect(stream);
    await until(() => vendor.connections.length > before);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await clock.tick(12_000);
    await until(() => vendor.connections[before]!.controls.length >= 3);
    expect(vendor.connections[before]!.controls.map((c) => c.type)).toEqual([
      'KeepAlive',
      'KeepAlive',
      'KeepAlive',
    ]);
    stream.close();
    await results.done;
  });

  it.each([
    ['a refused key', { refuse: 0 }, 'bad', false],
    ['a refused connection', { refuse: 503 }, KEY, true],
    ['a socket dropped mid-utterance', { after: { bytes: 3000, then: 'drop' as const } }, KEY, true],
    ['garbage', { after: { bytes: 3000, then: 'garbage' as const } }, KEY, true],
    ['an oversized message', { after: { bytes: 3000, then: 'oversized' as const } }, KEY, true],
    ["the vendor's error", { after: { bytes: 3000, then: 'error' as const } }, KEY, true],
  ])(
    'fails the stream on %s, with a retryable flag, and never names the key',
    async (_name, behaviour, key, retryable) => {
      vendor.behave(behaviour);
      try {
        const stream = createDeepgramSTT({ apiKey: key, baseUrl: vendor.baseUrl }).stream();
        const results = collect(stream);
        say(stream, 'I would like to book a table for two people tomorrow');
        stream.flush();
        await results.done;
        expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable });
        expect(results.state.error?.message).not.toContain(key);
        expect(results.state.error?.message).not.toContain(KEY);
      } finally {
        vendor.behave({});
      }
    },
  );

  it('fails a handshake that never completes within its bound', async () => {
    const clock = createManualClock();
    const stream = createDeepgramSTT({
      apiKey: KEY,
      baseUrl: 'ws://10.255.255.1:9',
      clock,
      connectTimeoutMs: 2000,
    }).stream();
    const results = collect(stream);
    await clock.tick(2000);
    await results.done;
    expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable: true });
    expect(results.state.error?.message).toMatch(/no connection within 2000 ms/);
  });

  it('checks its key with Deepgram: good, refused, unreachable', async () => {
    expect(await make().check()).toEqual({ ok: true });
    expect(await createDeepgramSTT({ apiKey: 'nope', baseUrl: vendor.baseUrl }).check()).toMatchObject({
      ok: false,
      problem: 'bad_key',
    });
    expect(await createDeepgramSTT({ apiKey: KEY, baseUrl: 'ws://127.0.0.1:1' }).check()).toMatchObject({
      ok: false,
      problem: 'unreachable',
    });
  });
});
