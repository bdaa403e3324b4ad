import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSpeechReader, dataSpeechFrames, type AudioFrame } from '../../media/index.ts';
import { createFakeOpenAISpeech, type FakeOpenAISpeech } from '../../../test/openai-speech-server/index.ts';
import { runSTTContract, type STTContractAudio } from '../testing/stt-contract.ts';
import { runTTSContract } from '../testing/tts-contract.ts';
import { createOpenAISTT } from './stt-openai.ts';
import { createOpenAITTS } from './tts-openai.ts';
import type { STTResult, STTStream, SynthesizedAudio } from './types.ts';

// The OpenAI-compatible adapters against a local fake of `/v1/audio/speech` and
// `/v1/audio/transcriptions` (test/openai-speech-server), served under a path prefix as a
// self-hosted server may be: the STT and TTS contracts, then OpenAI's own wire and its failures.

const KEY = 'sk-test-0123456789abcdef';
let server: FakeOpenAISpeech;

beforeAll(async () => {
  server = await createFakeOpenAISpeech({ apiKey: KEY, prefix: '/openai-compatible' });
});
afterAll(() => server.close());

// The file API; the realtime socket's tests are in stt-openai-realtime.test.ts.
const stt = () => createOpenAISTT({ apiKey: KEY, baseUrl: server.baseUrl, transport: 'file' });
const tts = () => createOpenAITTS({ apiKey: KEY, baseUrl: server.baseUrl });
const at8k = (frames: AudioFrame[]): AudioFrame[] =>
  frames.map((f) => ({ ...f, samples: f.samples.filter((_, i) => i % 2 === 0), sampleRate: 8000 }));

const audio: STTContractAudio = {
  speech: (text, rate) => (rate === 16000 ? dataSpeechFrames(text) : at8k(dataSpeechFrames(text))),
  sentences: ['I would like to book a table for two.', 'Yes, Tuesday works for me.'],
  maxWordErrorRate: 0,
  maxWordErrorRate8k: 0,
};

runSTTContract('openai', () => stt(), audio);
runTTSContract('openai', () => tts(), { speed: false });

function collect(stream: STTStream) {
  const got: STTResult[] = [];
  const state: { error: (Error & { retryable?: boolean }) | null } = { error: null };
  const done = (async () => {
    try {
      for await (const r of stream.results) got.push(r);
    } catch (err) {
      state.error = err as Error;
    }
  })();
  return { got, state, done, finals: () => got.filter((r) => r.kind === 'final').map((r) => r.text) };
}

async function speak(
  text: string,
  behaviour = {},
): Promise<{ audio: SynthesizedAudio[]; error: (Error & { retryable?: boolean }) | null }> {
  server.behave(behaviour);
  const out: SynthesizedAudio[] = [];
  let error: (Error & { retryable?: boolean }) | null = null;
  try {
    const stream = tts().stream({ voice: 'nova', speed: 1.5 });
    stream.pushText(text);
    stream.endInput();
    for await (const piece of stream.audio) out.push(piece);
  } catch (err) {
    error = err as Error;
  } finally {
    server.behave({});
  }
  return { audio: out, error };
}

describe('OpenAI-compatible transcription', () => {
  it('sends each utterance as a WAV at its own rate (8 kHz stays 8 kHz), with the model, language and keywords', async () => {
    const before = server.requests.length;
    const stream = stt().stream({ language: 'en-US', keywords: ['Parley', 'solar'] });
    const results = collect(stream);
    for (const frame of at8k(dataSpeechFrames('book a table'))) stream.push(frame);
    stream.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.close();
    await results.done;
    expect(results.finals()).toEqual(['book a table']);
    const request = server.requests[before]!;
    expect(request.wav).toEqual({ rate: 8000, samples: dataSpeechFrames('book a table').length * 160 });
    expect(request.fields).toEqual({
      model: 'gpt-4o-mini-transcribe',
      response_format: 'json',
      language: 'en',
      prompt: 'Parley, solar',
    });
  });

  it('gives the finals in flush order when the server answers out of order', async () => {
    server.behave({ reverse: true });
    const stream = stt().stream();
    const results = collect(stream);
    for (const text of ['first line', 'second line']) {
      for (const frame of dataSpeechFrames(text)) stream.push(frame);
      stream.flush();
    }
    while (results.finals().length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    server.behave({});
    stream.close();
    await results.done;
    expect(results.finals()).toEqual(['first line', 'second line']);
  });

  it.each([
    ['a refused key', {}, 'wrong-key', false],
    ['a server error', { status: 500 }, KEY, true],
  ])('fails the stream on %s, never naming the key', async (_name, behaviour, key, retryable) => {
    server.behave(behaviour);
    const stream = createOpenAISTT({ apiKey: key, baseUrl: server.baseUrl, transport: 'file' }).stream();
    const results = collect(stream);
    for (const frame of dataSpeechFrames('hello')) stream.push(frame);
    stream.flush();
    await results.done;
    server.behave({});
    expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable });
    expect(results.state.error?.message).not.toContain(key);
  });

  it('fails a request that gets no answer within its bound', async () => {
    server.behave({ stall: true });
    const stream = createOpenAISTT({
      apiKey: KEY,
      baseUrl: server.baseUrl,
      requestTimeoutMs: 300,
      transport: 'file',
    }).stream();
    const results = collect(stream);
    for (const frame of dataSpeechFrames('hello')) stream.push(frame);
    stream.flush();
    await results.done;
    server.behave({});
    expect(results.state.error?.message).toMatch(/no answer within 300 ms/);
  });
});

describe('OpenAI-compatible speech', () => {
  it('streams 24 kHz PCM cut into 20 ms frames across odd chunk edges, exactly what was asked', async () => {
    const before = server.requests.length;
    const { audio: out, error } = await speak('Hello there, how are you today?');
    expect(error).toBeNull();
    expect(out.every((p) => p.frame.sampleRate === 24000)).toBe(true);
    expect(out.slice(0, -1).every((p) => p.frame.samples.length === 480)).toBe(true);
    const reader = createDataSpeechReader();
    for (const p of out) reader.push(p.frame);
    expect(reader.text).toBe('Hello there, how are you today?');
    expect(server.requests[before]!.fields).toEqual({
      model: 'gpt-4o-mini-tts',
      input: 'Hello there, how are you today?',
      voice: 'nova',
      response_format: 'pcm',
      speed: 1.5,
    });
  });

  it.each([
    ['a dropped connection', { speech: 'drop' }],
    ['JSON instead of audio', { speech: 'json' }],
    ['an odd byte count', { speech: 'odd' }],
    ['a server error', { status: 503 }],
  ])('fails the audio on %s', async (_name, behaviour) => {
    const { error } = await speak('Hello there.', behaviour);
    expect(error).toMatchObject({ code: 'tts_failed', retryable: true });
    expect(error?.message).not.toContain(KEY);
  });

  it('lists its voices and checks its key and model with the server', async () => {
    expect((await tts().voices()).map((v) => v.id)).toContain('alloy');
    expect(await tts().check()).toEqual({ ok: true });
    expect(await createOpenAITTS({ apiKey: 'nope', baseUrl: server.baseUrl }).check()).toMatchObject({
      problem: 'bad_key',
    });
    expect(
      await createOpenAITTS({ apiKey: KEY, baseUrl: server.baseUrl, model: 'tts-9' }).check(),
    ).toMatchObject({ problem: 'bad_model' });
    expect(await createOpenAITTS({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1/v1' }).check()).toMatchObject({
      problem: 'unreachable',
    });
    expect(await stt().check()).toEqual({ ok: true });
  });
});
