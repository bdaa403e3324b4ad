import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeCartesia, type FakeCartesia } from '../../../test/cartesia-server/index.ts';
import { createManualClock } from '../../core/index.ts';
import { runTTSContract } from '../testing/tts-contract.ts';
import { createCartesiaTTS, type CartesiaTTSOptions } from './tts-cartesia.ts';
import { collect, durationMs, heard, until } from './tts-hosted-testing.ts';
import { SpeechError, type TTSOptions } from './types.ts';

const KEY = 'sk_car_test_7d2e41';
const ONE = 'Hello there, how are you today?';
const TWO = 'I am calling about your appointment.';
let server: FakeCartesia;
beforeAll(async () => {
  server = await createFakeCartesia({ apiKey: KEY });
});
afterAll(() => server.close());

const make = (overrides: Partial<CartesiaTTSOptions> = {}) =>
  createCartesiaTTS({
    apiKey: KEY,
    baseUrl: server.baseUrl,
    version: '2025-04-16',
    model: 'sonic-3',
    defaultVoice: 'voice-katie',
    ...overrides,
  });

// Speed 2 is sent as 1.5, Cartesia's most; the fake speaks that a third shorter.
runTTSContract('cartesia', () => make(), { speed: true });

const speak = (options: TTSOptions = {}, texts = [ONE, TWO], tts = make()) => {
  const stream = tts.stream(options);
  for (const text of texts) {
    stream.pushText(text);
    stream.flush();
  }
  stream.endInput();
  return collect(stream);
};

describe('Cartesia TTS', () => {
  it('speaks each segment exactly, in order, one context each', async () => {
    server.behave({});
    const { audio, error } = await speak();
    expect(error).toBeUndefined();
    expect(heard(audio)).toEqual([ONE, TWO]);
    expect(audio.filter((a) => a.text).map((a) => [a.segment, a.text])).toEqual([
      [0, ONE],
      [1, TWO],
    ]);
    expect(audio.filter((a) => a.last).map((a) => a.segment)).toEqual([0, 1]);
    const conn = server.connections.at(-1)!;
    expect(conn).toMatchObject({
      keyOk: true,
      version: '2025-04-16',
      query: { cartesia_version: '2025-04-16' },
    });
    const [first, second] = [...new Set(conn.messages.map((m) => m.context_id))];
    expect(conn.messages.map((m) => [m.context_id, m.transcript, m.continue])).toEqual([
      [first, ONE, true],
      [first, '', false],
      [second, TWO, true],
      [second, '', false],
    ]);
    expect(conn.messages[0]).toMatchObject({
      model_id: 'sonic-3',
      voice: { mode: 'id', id: 'voice-katie' },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 },
    });
    await until(() => conn.closed);
  });

  it('streams pushed text on the context with continue, and asks for 8 kHz for a telephone leg', async () => {
    server.behave({});
    const stream = make().stream({ sampleRate: 8000 });
    stream.pushText('Hello there,');
    stream.pushText(' how are you today?');
    stream.endInput();
    const { audio, error } = await collect(stream);
    expect(error).toBeUndefined();
    expect(audio.every((a) => a.frame.sampleRate === 8000)).toBe(true);
    expect(audio.slice(0, -1).every((a) => a.frame.samples.length === 160)).toBe(true);
    expect(heard(audio)).toEqual([ONE]);
    const conn = server.connections.at(-1)!;
    expect(conn.messages.map((m) => [m.transcript, m.continue])).toEqual([
      ['Hello there,', true],
      [' how are you today?', true],
      ['', false],
    ]);
    expect(conn.messages[0]).toMatchObject({ output_format: { sample_rate: 8000 } });
  });

  it('sends speed as generation_config and the language', async () => {
    server.behave({});
    const fast = await speak({ speed: 2, language: 'it-IT', voice: 'voice-marco' }, [ONE]);
    expect(fast.error).toBeUndefined();
    expect(server.connections.at(-1)!.messages[0]).toMatchObject({
      language: 'it',
      voice: { id: 'voice-marco' },
      generation_config: { speed: 1.5 },
    });
    const normal = await speak({}, [ONE]);
    expect(durationMs(fast.audio)).toBeLessThan(durationMs(normal.audio) * 0.75);
  });

  it('close() mid-segment cancels the context', async () => {
    server.behave({ chunkBytes: 640 });
    const stream = make().stream();
    const audio = stream.audio[Symbol.asyncIterator]();
    stream.pushText(ONE);
    stream.flush();
    expect((await audio.next()).done).toBe(false);
    stream.close();
    expect((await audio.next()).done).toBe(true);
    const conn = server.connections.at(-1)!;
    await until(() => conn.closed);
    expect(conn.cancelled).toEqual([conn.messages[0]!.context_id]);
  });

  const failures: [string, Parameters<FakeCartesia['behave']>[0]][] = [
    ['a refused upgrade', { refuse: 503 }],
    ['a socket dropped mid-segment', { after: 'drop' }],
    ['a message that is not JSON', { after: 'garbage' }],
    ['an oversized message', { after: 'oversized' }],
    ['an error message from the vendor', { after: 'error', errorText: KEY }],
    ['audio at another rate than asked', { wrongRate: true }],
  ];
  for (const [name, behaviour] of failures) {
    it(`fails on ${name}: a SpeechError, the audio ends, the key is never named`, async () => {
      server.behave(behaviour);
      const { error } = await speak({}, [ONE], make({ maxMessageBytes: 64 * 1024 }));
      expect(error).toBeInstanceOf(SpeechError);
      expect(error).toMatchObject({ code: 'tts_failed', retryable: true });
      expect(String((error as Error).message)).not.toContain(KEY);
    });
  }

  it('a refused key fails at once, not retryable', async () => {
    server.behave({});
    const { error } = await speak({}, [ONE], make({ apiKey: 'wrong-key' }));
    expect(error).toMatchObject({ code: 'tts_failed', retryable: false });
    expect((error as Error).message).not.toContain('wrong-key');
  });

  it('a handshake that never completes, or audio that never comes, fails on the clock', async () => {
    const clock = createManualClock();
    server.behave({ stall: 'upgrade' });
    const count = server.connections.length;
    const held = make({ clock, connectTimeoutMs: 3000 }).stream();
    held.pushText(ONE);
    held.flush();
    const first = collect(held);
    await until(() => server.connections.length > count);
    clock.advance(3000);
    expect((await first).error).toMatchObject({ code: 'tts_failed', retryable: true });

    server.behave({ stall: 'audio' });
    const quiet = make({ clock, stallTimeoutMs: 4000 }).stream();
    quiet.pushText(ONE);
    quiet.flush();
    const second = collect(quiet);
    await until(() => server.connections.at(-1)!.messages.some((m) => m.continue === false));
    clock.advance(4000);
    expect((await second).error).toMatchObject({ code: 'tts_failed', retryable: true });
  });

  it('lists voices and checks the key, the URL and the default voice', async () => {
    const httpBaseUrl = server.httpBaseUrl;
    const voices = await make({ httpBaseUrl }).voices();
    expect(voices).toEqual([
      {
        id: 'voice-katie',
        name: 'Katie',
        gender: 'female',
        languages: ['en'],
        description: 'A friendly agent',
      },
      { id: 'voice-marco', name: 'Marco', gender: 'male', languages: ['it'], description: 'A calm narrator' },
    ]);
    expect(await make({ httpBaseUrl }).check()).toEqual({ ok: true });
    expect(await make({ httpBaseUrl, apiKey: 'nope' }).check()).toMatchObject({
      ok: false,
      problem: 'bad_key',
    });
    expect(await make({ httpBaseUrl, defaultVoice: 'missing' }).check()).toMatchObject({
      ok: false,
      problem: 'bad_voice',
    });
    expect(await make({ httpBaseUrl: 'http://127.0.0.1:1' }).check()).toMatchObject({
      ok: false,
      problem: 'unreachable',
    });
  });
});
