import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createManualClock } from '../../core/index.ts';
import { dataSpeechFrames, type AudioFrame } from '../../media/index.ts';
import {
  createFakeOpenAISpeech,
  type FakeOpenAISpeech,
  type OpenAISpeechBehaviour,
} from '../../../test/openai-speech-server/index.ts';
import { runSTTContract, type STTContractAudio } from '../testing/stt-contract.ts';
import { createOpenAISTT, type OpenAISTTOptions } from './stt-openai.ts';
import type { STTResult, STTStream } from './types.ts';

// The OpenAI adapter's realtime transcription socket against test/openai-speech-server: the STT
// contract on the socket, and on a server without it (the file API takes over); then OpenAI's
// realtime wire (the session, 24 kHz audio, commits matched to items), the choice of transport
// and every failure a hosted vendor shows.

const KEY = 'sk-test-realtime-0123456789abcdef';
/** Has the realtime socket, as OpenAI. */
let openai: FakeOpenAISpeech;
/** Has only the file API, as a self-hosted Whisper-style server: the handshake gets a 404. */
let selfHosted: FakeOpenAISpeech;

beforeAll(async () => {
  openai = await createFakeOpenAISpeech({ apiKey: KEY, prefix: '/openai', realtime: true });
  selfHosted = await createFakeOpenAISpeech({ apiKey: KEY, prefix: '/whisper' });
});
afterAll(async () => {
  await openai.close();
  await selfHosted.close();
});

const make = (extra: Partial<OpenAISTTOptions> = {}) =>
  createOpenAISTT({ apiKey: KEY, baseUrl: openai.baseUrl, ...extra });

const at8k = (frames: AudioFrame[]): AudioFrame[] =>
  frames.map((f) => ({ ...f, samples: f.samples.filter((_, i) => i % 2 === 0), sampleRate: 8000 }));
/** 16 kHz data speech held at 24 kHz (each frame's level, 480 samples). */
const at24k = (frames: AudioFrame[]): AudioFrame[] =>
  frames.map((f) => ({ ...f, samples: new Int16Array(480).fill(f.samples[0] ?? 0), sampleRate: 24000 }));

const audio: STTContractAudio = {
  speech: (text, rate) => (rate === 16000 ? dataSpeechFrames(text) : at8k(dataSpeechFrames(text))),
  sentences: ['I would like to book a table for two.', 'Yes, Tuesday works for me.'],
  maxWordErrorRate: 0,
  maxWordErrorRate8k: 0,
};

runSTTContract('openai realtime', () => make({ transport: 'realtime' }), audio);
runSTTContract(
  'openai realtime, on a server without the socket',
  () => createOpenAISTT({ apiKey: KEY, baseUrl: selfHosted.baseUrl }),
  audio,
);

type Failure = Error & { code?: string; retryable?: boolean };

/** Reads a stream's results as they come. */
function collect(stream: STTStream) {
  const got: STTResult[] = [];
  const state: { error: Failure | null } = { error: null };
  const done = (async () => {
    try {
      for await (const r of stream.results) got.push(r);
    } catch (err) {
      state.error = err as Failure;
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

function say(stream: STTStream, text: string, rate: 8000 | 16000 | 24000 = 16000) {
  const frames = dataSpeechFrames(text);
  for (const frame of rate === 16000 ? frames : rate === 8000 ? at8k(frames) : at24k(frames))
    stream.push(frame);
}

/** With `behaviour` for the test's length. */
async function behaving<T>(
  server: FakeOpenAISpeech,
  behaviour: OpenAISpeechBehaviour,
  run: () => Promise<T>,
) {
  server.behave(behaviour);
  try {
    return await run();
  } finally {
    server.behave({});
  }
}

/** Says `text` on a fresh stream, flushes, and waits for the final (or the failure). */
async function transcribe(options: Partial<OpenAISTTOptions>, text: string, baseUrl = openai.baseUrl) {
  const stream = createOpenAISTT({ apiKey: KEY, baseUrl, ...options }).stream();
  const results = collect(stream);
  say(stream, text);
  stream.flush();
  await until(() => results.finals().length === 1 || results.state.error !== null);
  stream.close();
  await results.done;
  return results;
}

describe('OpenAI realtime transcription', () => {
  it('opens a transcription session with the model, language and keywords, and our own turns', async () => {
    const before = openai.realtime.length;
    const stream = make({ model: 'gpt-4o-transcribe' }).stream({
      language: 'en-GB',
      keywords: ['Parley', 'solar panels'],
    });
    const results = collect(stream);
    // Said and flushed before the socket opens: held, then sent after the session.
    say(stream, 'book a table');
    stream.flush();
    await until(() => results.finals().length === 1);
    stream.close();
    await results.done;
    expect(results.finals()).toEqual(['book a table']);
    const conn = openai.realtime[before]!;
    expect(conn.path).toBe('/realtime?intent=transcription');
    expect(conn.sessions).toEqual([
      {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: 'Parley, solar panels' },
            turn_detection: null,
          },
        },
      },
    ]);
    const frames = dataSpeechFrames('book a table').length;
    expect(conn.events).toEqual([
      'session.update',
      ...Array<string>(frames).fill('input_audio_buffer.append'),
      'input_audio_buffer.commit',
    ]);
  });

  it('leaves out the language and prompt it does not have', async () => {
    const before = openai.realtime.length;
    await transcribe({}, 'hello');
    expect(openai.realtime[before]!.sessions).toMatchObject([
      { audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe' } } } },
    ]);
    const transcription = (
      openai.realtime[before]!.sessions[0] as { audio: { input: { transcription: object } } }
    ).audio.input.transcription;
    expect(Object.keys(transcription)).toEqual(['model']);
  });

  it.each([8000, 16000, 24000] as const)(
    'sends %i Hz audio at 24 kHz, every frame of it, and reads the words back',
    async (rate) => {
      const before = openai.realtime.length;
      const stream = make().stream({ sampleRate: rate === 24000 ? 16000 : rate });
      const results = collect(stream);
      say(stream, 'yes Tuesday works', rate);
      stream.flush();
      await until(() => results.finals().length === 1);
      stream.close();
      await results.done;
      const conn = openai.realtime[before]!;
      // 20 ms is 480 samples at 24 kHz, whatever the rate the frame came at.
      expect(conn.audioBytes).toBe(dataSpeechFrames('yes Tuesday works').length * 480 * 2);
      expect(conn.commits).toEqual([{ samples: conn.audioBytes / 2, text: 'yes Tuesday works' }]);
      expect(results.finals()).toEqual(['yes Tuesday works']);
    },
  );

  it("gives the server's completed transcript as the one final, its deltas not as partials", async () => {
    const stt = make();
    const stream = stt.stream();
    const results = collect(stream);
    say(stream, 'I own my home');
    stream.flush();
    await until(() => results.finals().length === 1);
    stream.close();
    await results.done;
    // The deltas come only after the commit (the flush): the voice session, told there are no
    // partials, flushes at the speech end instead of waiting for words that never come.
    expect(stt.partials).toBe(false);
    expect(results.got.map((r) => [r.kind, r.text])).toEqual([['final', 'I own my home']]);
  });

  it('gives the finals in flush order when the completions cross', async () => {
    await behaving(openai, { reverse: true }, async () => {
      const before = openai.realtime.length;
      const stream = make().stream();
      const results = collect(stream);
      for (const text of ['first line', 'second line', 'third line', 'fourth line']) {
        say(stream, text);
        stream.flush();
      }
      await until(() => results.finals().length === 4);
      stream.close();
      await results.done;
      expect(results.finals()).toEqual(['first line', 'second line', 'third line', 'fourth line']);
      expect(openai.realtime[before]!.commits.map((c) => c.text)).toEqual([
        'first line',
        'second line',
        'third line',
        'fourth line',
      ]);
    });
  });

  it('commits nothing for a flush without audio, and answers a flush of under 100 ms itself, in order', async () => {
    const before = openai.realtime.length;
    const stream = make().stream();
    const results = collect(stream);
    stream.flush();
    say(stream, 'first line');
    stream.flush();
    stream.flush();
    // 60 ms: OpenAI would refuse to commit it (an error that would end the stream).
    for (let i = 0; i < 3; i += 1) stream.push({ samples: new Int16Array(320), sampleRate: 16000, at: 0 });
    stream.flush();
    say(stream, 'second line');
    stream.flush();
    await until(() => results.finals().length === 3);
    stream.close();
    await results.done;
    expect(results.state.error).toBeNull();
    expect(results.finals()).toEqual(['first line', '', 'second line']);
    const events = openai.realtime[before]!.events.filter((e) => e !== 'input_audio_buffer.append');
    expect(events).toEqual([
      'session.update',
      'input_audio_buffer.commit',
      'input_audio_buffer.clear',
      'input_audio_buffer.commit',
    ]);
  });

  it('closes the socket cleanly on close() and on the signal', async () => {
    const before = openai.realtime.length;
    const first = make().stream();
    const firstResults = collect(first);
    say(first, 'hello');
    await until(() => openai.realtime.length > before && openai.realtime[before]!.audioBytes > 0);
    first.close();
    await firstResults.done;
    await until(() => openai.realtime[before]!.closed);
    expect(openai.realtime[before]!.closeCode).toBe(1000);

    const controller = new AbortController();
    const second = make().stream({ signal: controller.signal });
    const secondResults = collect(second);
    say(second, 'hello');
    await until(() => openai.realtime.length > before + 1 && openai.realtime[before + 1]!.audioBytes > 0);
    controller.abort();
    await secondResults.done;
    await until(() => openai.realtime[before + 1]!.closed);
    expect(openai.realtime[before + 1]!.closeCode).toBe(1000);
    expect(secondResults.state.error).toBeNull();
  });
});

describe('OpenAI transcription: realtime or the file API', () => {
  it('falls back to the file API on a server without the socket, losing no audio, and remembers it', async () => {
    const upgrades = selfHosted.upgrades.length;
    const requests = selfHosted.requests.length;
    const stt = createOpenAISTT({ apiKey: KEY, baseUrl: selfHosted.baseUrl });
    const stream = stt.stream({ language: 'en-US', keywords: ['Parley'] });
    const results = collect(stream);
    // Said and flushed while the handshake is under way: replayed into the file API.
    say(stream, 'book a table', 8000);
    stream.flush();
    await until(() => results.finals().length === 1);
    // And after the fallback: straight to the file API.
    say(stream, 'for two', 8000);
    stream.flush();
    await until(() => results.finals().length === 2);
    stream.close();
    await results.done;
    expect(results.finals()).toEqual(['book a table', 'for two']);
    expect(selfHosted.upgrades.slice(upgrades)).toEqual([
      { path: '/realtime?intent=transcription', status: 404 },
    ]);
    expect(
      selfHosted.requests.slice(requests).map((r) => [r.path, r.wav, r.fields.language, r.fields.prompt]),
    ).toEqual([
      [
        '/audio/transcriptions',
        { rate: 8000, samples: dataSpeechFrames('book a table').length * 160 },
        'en',
        'Parley',
      ],
      [
        '/audio/transcriptions',
        { rate: 8000, samples: dataSpeechFrames('for two').length * 160 },
        'en',
        'Parley',
      ],
    ]);

    // The next stream of the same adapter does not try the socket again.
    const next = stt.stream();
    const nextResults = collect(next);
    say(next, 'hello');
    next.flush();
    await until(() => nextResults.finals().length === 1);
    next.close();
    await nextResults.done;
    expect(nextResults.finals()).toEqual(['hello']);
    expect(selfHosted.upgrades.length).toBe(upgrades + 1);
  });

  it.each([405, 426, 200])('falls back to the file API on a handshake answered HTTP %i', async (status) => {
    await behaving(openai, { refuseRealtime: status }, async () => {
      const requests = openai.requests.length;
      const results = await transcribe({}, 'good morning');
      expect(results.state.error).toBeNull();
      expect(results.finals()).toEqual(['good morning']);
      expect(openai.requests.slice(requests).map((r) => r.path)).toEqual(['/audio/transcriptions']);
    });
  });

  it('uses the file API alone when told to', async () => {
    const upgrades = openai.upgrades.length;
    const requests = openai.requests.length;
    const results = await transcribe({ transport: 'file' }, 'good morning');
    expect(results.finals()).toEqual(['good morning']);
    expect(openai.upgrades.length).toBe(upgrades);
    expect(openai.requests.slice(requests).map((r) => r.path)).toEqual(['/audio/transcriptions']);
  });

  it('fails instead of falling back when told to use the socket', async () => {
    const requests = selfHosted.requests.length;
    const results = await transcribe({ transport: 'realtime' }, 'good morning', selfHosted.baseUrl);
    expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable: false });
    expect(results.state.error?.message).toMatch(/HTTP 404/);
    expect(selfHosted.requests.length).toBe(requests);
  });

  it('fails on a refused key, not retryable, without falling back or naming the key', async () => {
    const requests = openai.requests.length;
    const results = await transcribe({ apiKey: 'sk-wrong-key-42' }, 'good morning');
    expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable: false });
    expect(results.state.error?.message).toMatch(/HTTP 401/);
    expect(results.state.error?.message).not.toContain('sk-wrong-key-42');
    expect(openai.requests.length).toBe(requests);
  });
});

describe('OpenAI realtime transcription failures', () => {
  it.each([
    ['a refused connection', { refuseRealtime: 503 }],
    ['a socket dropped mid-utterance', { after: { bytes: 3000, then: 'drop' as const } }],
    ['garbage', { after: { bytes: 3000, then: 'garbage' as const } }],
    ['an oversized message', { after: { bytes: 3000, then: 'oversized' as const } }],
    ["the vendor's error event", { after: { bytes: 3000, then: 'error' as const } }],
  ])('fails the stream on %s, retryable, never naming the key (nor logging it)', async (_name, behaviour) => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => lines.push(line) },
    });
    await behaving(openai, behaviour, async () => {
      const requests = openai.requests.length;
      const stream = make({ logger }).stream();
      const results = collect(stream);
      say(stream, 'I would like to book a table for two people tomorrow');
      stream.flush();
      await results.done;
      expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable: true });
      expect(results.state.error?.message).not.toContain(KEY);
      expect(lines.join('')).toContain('openai realtime transcription failed');
      expect(lines.join('')).not.toContain(KEY);
      // A failure is the failover's to handle, not the file API's.
      expect(openai.requests.length).toBe(requests);
    });
  });

  it("passes on the vendor's error code, the key cut out", async () => {
    await behaving(openai, { after: { bytes: 3000, then: 'error' } }, async () => {
      const results = await transcribe({}, 'I would like to book a table for two people tomorrow');
      expect(results.state.error?.message).toMatch(/server_error: .*\(key \[redacted\]\)/);
    });
  });

  it('fails a handshake that never completes within its bound', async () => {
    const clock = createManualClock();
    await behaving(openai, { stall: true }, async () => {
      const upgrades = openai.upgrades.length;
      const stream = make({ clock, connectTimeoutMs: 2000 }).stream();
      const results = collect(stream);
      say(stream, 'hello');
      stream.flush();
      await until(() => openai.upgrades.length > upgrades);
      await clock.tick(1999);
      expect(results.state.error).toBeNull();
      await clock.tick(1);
      await results.done;
      expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable: true });
      expect(results.state.error?.message).toMatch(/no connection within 2000 ms/);
    });
  });

  it('fails a commit whose transcript does not come within its bound', async () => {
    const clock = createManualClock();
    await behaving(openai, { mute: true }, async () => {
      const before = openai.realtime.length;
      const stream = make({ clock, requestTimeoutMs: 3000 }).stream();
      const results = collect(stream);
      say(stream, 'hello there');
      stream.flush();
      await until(() => openai.realtime[before]?.commits.length === 1);
      await clock.tick(2999);
      expect(results.state.error).toBeNull();
      await clock.tick(1);
      await results.done;
      expect(results.finals()).toEqual([]);
      expect(results.state.error).toMatchObject({ code: 'stt_failed', retryable: true });
      expect(results.state.error?.message).toMatch(/no transcript within 3000 ms/);
    });
  });
});
