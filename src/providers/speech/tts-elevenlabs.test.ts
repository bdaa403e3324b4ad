import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeElevenLabs, type FakeElevenLabs } from '../../../test/elevenlabs-server/index.ts';
import { createManualClock } from '../../core/index.ts';
import { runTTSContract } from '../testing/tts-contract.ts';
import { createElevenLabsTTS, type ElevenLabsTTSOptions } from './tts-elevenlabs.ts';
import { collect, durationMs, heard, until } from './tts-hosted-testing.ts';
import { SpeechError, type TTSOptions } from './types.ts';

const KEY = 'xi-test-key-5f1c9a';
const ONE = 'Hello there, how are you today?';
const TWO = 'I am calling about your appointment.';
let server: FakeElevenLabs;
beforeAll(async () => {
  server = await createFakeElevenLabs({ apiKey: KEY });
});
afterAll(() => server.close());

const make = (overrides: Partial<ElevenLabsTTSOptions> = {}) =>
  createElevenLabsTTS({
    apiKey: KEY,
    baseUrl: server.baseUrl,
    model: 'eleven_flash_v2_5',
    defaultVoice: 'voice-rachel',
    ...overrides,
  });

// ElevenLabs takes speeds up to 1.2 only, so speed 2 cannot be 25% shorter (checked below instead).
runTTSContract('elevenlabs', () => make(), { speed: false, msPerWord: [100, 1000] });

const speak = (options: TTSOptions = {}, texts = [ONE, TWO], tts = make()) => {
  const stream = tts.stream(options);
  for (const text of texts) {
    stream.pushText(text);
    stream.flush();
  }
  stream.endInput();
  return collect(stream);
};

describe('ElevenLabs TTS', () => {
  it('speaks each segment exactly, in order, on one multi-context socket', async () => {
    server.behave({});
    const before = server.connections.length;
    const { audio, error } = await speak();
    expect(error).toBeUndefined();
    expect(heard(audio)).toEqual([ONE, TWO]);
    expect(audio.filter((a) => a.text).map((a) => [a.segment, a.text])).toEqual([
      [0, ONE],
      [1, TWO],
    ]);
    expect(audio.filter((a) => a.last).map((a) => a.segment)).toEqual([0, 1]);
    expect(server.connections.length).toBe(before + 1);
    const conn = server.connections.at(-1)!;
    expect(conn).toMatchObject({ voice: 'voice-rachel', keyOk: true });
    await until(() => conn.closed);
    expect(conn.query).toMatchObject({ model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000' });
    const contexts = [...new Set(conn.messages.map((m) => m.context_id).filter(Boolean))];
    expect(contexts).toHaveLength(2);
    expect(conn.messages.filter((m) => m.close_context === true).map((m) => m.context_id)).toEqual(contexts);
    expect(conn.messages.at(-1)).toEqual({ close_socket: true });
  });

  it('keeps at most 4 contexts open; later segments wait, audio stays in order', async () => {
    server.behave({});
    const texts = ['One.', 'Two.', 'Three.', 'Four.', 'Five.', 'Six.'];
    const { audio, error } = await speak({}, texts);
    expect(error).toBeUndefined();
    expect(heard(audio)).toEqual(texts);
    // Six contexts in turn on one socket, never more than 4 open (the adapter's bound).
    const opens = server.connections.at(-1)!.messages.filter((m) => m.text === ' ');
    expect(opens).toHaveLength(6);
  });

  it('asks for 8 kHz audio for a telephone leg, as PCM or mu-law', async () => {
    server.behave({});
    const pcm = await speak({ sampleRate: 8000 }, [ONE]);
    expect(pcm.error).toBeUndefined();
    expect(server.connections.at(-1)!.query.output_format).toBe('pcm_8000');
    expect(pcm.audio.every((a) => a.frame.sampleRate === 8000)).toBe(true);
    expect(pcm.audio.slice(0, -1).every((a) => a.frame.samples.length === 160)).toBe(true);
    expect(heard(pcm.audio)).toEqual([ONE]);

    const ulaw = await speak({ sampleRate: 8000 }, [ONE], make({ ulaw8000: true }));
    expect(ulaw.error).toBeUndefined();
    expect(server.connections.at(-1)!.query.output_format).toBe('ulaw_8000');
    expect(ulaw.audio.every((a) => a.frame.sampleRate === 8000)).toBe(true);
    expect(heard(ulaw.audio)).toEqual([ONE]);
  });

  it('sends the voice tuning and speed as voice_settings, and the language', async () => {
    server.behave({});
    const tuned = await speak(
      {
        tuning: { stability: 0.3, similarityBoost: 0.8, style: 0.1 },
        speed: 2,
        language: 'de-DE',
        voice: 'v2',
      },
      [ONE],
    );
    expect(tuned.error).toBeUndefined();
    const conn = server.connections.at(-1)!;
    expect(conn.voice).toBe('v2');
    expect(conn.query.language_code).toBe('de');
    expect(conn.messages[0]).toMatchObject({
      text: ' ',
      voice_settings: { stability: 0.3, similarity_boost: 0.8, style: 0.1, speed: 1.2 },
    });
    const normal = await speak({}, [ONE]);
    expect(durationMs(tuned.audio)).toBeLessThan(durationMs(normal.audio) * 0.9);
  });

  it('close() mid-segment closes the context and the socket', async () => {
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
    expect(conn.messages.some((m) => m.close_socket === true)).toBe(true);
  });

  const failures: [string, Parameters<FakeElevenLabs['behave']>[0], boolean][] = [
    ['a refused upgrade', { refuse: 503 }, true],
    ['a socket dropped mid-segment', { after: 'drop' }, true],
    ['a message that is not JSON', { after: 'garbage' }, true],
    ['an oversized message', { after: 'oversized' }, true],
    ['an error message from the vendor', { after: 'error', errorText: KEY }, true],
    ['audio at another rate than asked', { wrongRate: true }, true],
  ];
  for (const [name, behaviour, retryable] of failures) {
    it(`fails on ${name}: a SpeechError, the audio ends, the key is never named`, async () => {
      server.behave(behaviour);
      const { error } = await speak({}, [ONE], make({ maxMessageBytes: 64 * 1024 }));
      expect(error).toBeInstanceOf(SpeechError);
      expect(error).toMatchObject({ code: 'tts_failed', retryable });
      expect(String((error as Error).message)).not.toContain(KEY);
    });
  }

  it('a refused key fails at once, not retryable', async () => {
    server.behave({});
    const { error } = await speak({}, [ONE], make({ apiKey: 'wrong-key' }));
    expect(error).toMatchObject({ code: 'tts_failed', retryable: false });
    expect((error as Error).message).toContain('401');
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
    await until(() => server.connections.at(-1)!.messages.some((m) => m.flush === true));
    clock.advance(3999);
    clock.advance(1);
    const { error } = await second;
    expect(error).toMatchObject({ code: 'tts_failed', retryable: true });
    expect((error as Error).message).toContain('4000 ms');
  });

  it('lists voices and checks the key, the URL and the default voice', async () => {
    const httpBaseUrl = server.httpBaseUrl;
    expect(await make({ httpBaseUrl }).voices()).toEqual([
      {
        id: 'voice-rachel',
        name: 'Rachel',
        gender: 'female',
        languages: [],
        description: '',
        previewUrl: 'https://example.test/rachel.mp3',
      },
    ]);
    expect(await make({ httpBaseUrl }).check()).toEqual({ ok: true });
    const badKey = await make({ httpBaseUrl, apiKey: 'nope' }).check();
    expect(badKey).toMatchObject({ ok: false, problem: 'bad_key' });
    expect(JSON.stringify(badKey)).not.toContain('nope');
    expect(await make({ httpBaseUrl, defaultVoice: 'missing' }).check()).toMatchObject({
      ok: false,
      problem: 'bad_voice',
    });
    expect(await make({ httpBaseUrl: 'http://127.0.0.1:1' }).check()).toMatchObject({
      ok: false,
      problem: 'unreachable',
    });
    await expect(make({ httpBaseUrl, apiKey: 'nope' }).voices()).rejects.toBeInstanceOf(SpeechError);
  });
});
