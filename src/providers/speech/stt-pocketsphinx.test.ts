import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import type { AudioFrame } from '../../media/index.ts';
import { runSTTContract, wordErrorRate } from '../testing/stt-contract.ts';
import {
  checkPocketSphinx,
  pocketSphinxAvailable,
  POCKETSPHINX_INSTALL,
} from './stt-pocketsphinx-availability.ts';
import {
  createPocketSphinxSTT,
  type PocketSphinxSTT,
  type PocketSphinxSTTOptions,
} from './stt-pocketsphinx.ts';
import { SpeechError, type STTResult, type STTStream } from './types.ts';

// Real PocketSphinx on flite (kal16) speech. CI installs it (.ci/run); elsewhere these tests skip,
// saying so, when it is missing.
const available = await pocketSphinxAvailable();
const runHere = available || Boolean(process.env.CI);
if (!runHere) {
  console.warn(`PocketSphinx tests skipped: PocketSphinx is not installed (${POCKETSPHINX_INSTALL})`);
}

// Sentences this engine gets right at 16 kHz and on telephone audio (bench/stt.ts has 50).
const SENTENCES = [
  'I would like to change the time of my appointment.',
  'Is it possible to pay with a credit card?',
  'Please let me know when the doctor is available.',
] as const;

const dir = mkdtempSync(join(tmpdir(), 'parley-stt-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const RAW = ['-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1'];
const cache = new Map<string, AudioFrame[]>();

/**
 * flite kal16 speech as 20 ms frames: at 16 kHz as flite makes it, or as a telephone line gives it
 * (sox down to 8 kHz, through G.711 mu-law and back to 16-bit samples, still at 8 kHz).
 */
function fliteFrames(text: string, rate: 8000 | 16000): AudioFrame[] {
  const key = `${rate}:${text}`;
  const known = cache.get(key);
  if (known) return known;
  const name = join(dir, `s${cache.size}`);
  execFileSync('flite', ['-voice', 'kal16', '-t', text, '-o', `${name}.wav`]);
  if (rate === 8000) {
    execFileSync('sox', [`${name}.wav`, '-r', '8000', '-e', 'u-law', `${name}-ulaw.wav`]);
    execFileSync('sox', [`${name}-ulaw.wav`, ...RAW, `${name}.raw`]);
  } else execFileSync('sox', [`${name}.wav`, ...RAW, '-r', '16000', `${name}.raw`]);
  const bytes = readFileSync(`${name}.raw`);
  const size = (rate * 20) / 1000;
  const frames: AudioFrame[] = [];
  for (let at = 0; at * 2 < bytes.length; at += size) {
    const samples = new Int16Array(size);
    for (let i = 0; i < size && (at + i) * 2 + 1 < bytes.length; i += 1)
      samples[i] = bytes.readInt16LE((at + i) * 2);
    frames.push({ samples, sampleRate: rate, at: (at * 1000) / rate });
  }
  cache.set(key, frames);
  return frames;
}

const silence = (ms: number): AudioFrame[] =>
  Array.from({ length: ms / 20 }, (_, i) => ({
    samples: new Int16Array(320),
    sampleRate: 16000,
    at: i * 20,
  }));

// Audio is pushed faster than real time, so decoding happens after the flush; a loaded CI machine
// needs more than the default 4 s.
const make = (options: PocketSphinxSTTOptions = {}) =>
  createPocketSphinxSTT({ utteranceTimeoutMs: 15_000, ...options });

const inUse = (stt: PocketSphinxSTT) => stt.pool.leased + stt.pool.waiting;

/** Collects a stream's results; `done` settles with the error the stream failed with, if any. */
function collect(stream: STTStream) {
  const got: STTResult[] = [];
  const done = (async (): Promise<unknown> => {
    try {
      for await (const result of stream.results) got.push(result);
      return null;
    } catch (err) {
      return err;
    }
  })();
  return { got, done };
}

/** Waits (bounded, for a real process) until `ok()` holds. */
async function until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('PocketSphinx availability', () => {
  it('names what is missing and the install command', async () => {
    expect(
      await checkPocketSphinx({ binary: 'no-such-pocketsphinx-binary', modelDir: join(dir, 'none') }),
    ).toEqual({
      ok: false,
      missing: [
        'the no-such-pocketsphinx-binary binary (not on PATH)',
        `the acoustic model ${join(dir, 'none', 'en-us')}`,
        `the language model ${join(dir, 'none', 'en-us.lm.bin')}`,
        `the dictionary ${join(dir, 'none', 'cmudict-en-us.dict')}`,
      ],
    });
    const error = await createPocketSphinxSTT({ modelDir: join(dir, 'none') }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SpeechError);
    expect(error).toMatchObject({ code: 'stt_unavailable', retryable: false });
    expect((error as Error).message).toContain(`the dictionary ${join(dir, 'none', 'cmudict-en-us.dict')}`);
    expect((error as Error).message).toContain('apt-get install pocketsphinx pocketsphinx-en-us');
  });

  it.runIf(runHere)('finds the installed binary and model', async () => {
    expect(await checkPocketSphinx()).toMatchObject({ ok: true });
  });
});

describe.runIf(runHere)('PocketSphinx STT', () => {
  runSTTContract('pocketsphinx', () => make(), {
    speech: fliteFrames,
    sentences: [SENTENCES[0], SENTENCES[1]],
    maxWordErrorRate: 0.25,
    // No 8 kHz word check here: it depends on which band the shared decoders heard last (the
    // earlier tests are wideband); the telephone-band test below checks it on a fresh pool.
    resultTimeoutMs: 10_000,
    inUse: (stt) => inUse(stt as PocketSphinxSTT),
    dispose: (stt) => (stt as PocketSphinxSTT).close(),
  });

  it('recognizes telephone audio (8 kHz, G.711) on the decoder started for the telephone band', async () => {
    // Fed to a decoder with the model's wideband initial mean, this sentence comes out as noise
    // ("ah what what what what what").
    const stt = await make({ poolSize: 2 });
    try {
      await stt.ready();
      const stream = stt.stream();
      const results = collect(stream);
      for (const frame of fliteFrames(SENTENCES[0], 8000)) stream.push(frame);
      stream.flush();
      await until(() => results.got.length > 0, 'the final');
      expect(wordErrorRate(SENTENCES[0], results.got[0]!.text), results.got[0]!.text).toBeLessThanOrEqual(
        0.25,
      );
      stream.close();
    } finally {
      await stt.close();
    }
  });

  it('shares one decoder process between streams that speak at once', async () => {
    const stt = await make({ poolSize: 1 });
    try {
      await stt.ready();
      const [pid] = stt.pool.pids;
      const a = stt.stream();
      const b = stt.stream();
      const resultsA = collect(a);
      const resultsB = collect(b);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[0], 16000)]) a.push(frame);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[2], 16000)]) b.push(frame);
      expect(stt.pool.waiting).toBe(1);
      b.flush();
      a.flush();
      await until(() => resultsA.got.length > 0 && resultsB.got.length > 0, 'both finals');
      expect(wordErrorRate(SENTENCES[0], resultsA.got[0]!.text)).toBeLessThanOrEqual(0.25);
      expect(wordErrorRate(SENTENCES[2], resultsB.got[0]!.text)).toBeLessThanOrEqual(0.25);
      expect(stt.pool.pids).toEqual([pid]);
      a.close();
      b.close();
    } finally {
      await stt.close();
    }
  });

  it('gives the decoder back after silence without a flush, and keeps the words for the final', async () => {
    const stt = await make({ poolSize: 1, idleReleaseMs: 600 });
    try {
      const stream = stt.stream();
      const results = collect(stream);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[2], 16000)]) stream.push(frame);
      expect(stt.pool.leased + stt.pool.waiting).toBe(1);
      for (const frame of silence(800)) stream.push(frame);
      await until(() => inUse(stt) === 0, 'the release');
      expect(results.got).toEqual([]);
      stream.flush();
      await until(() => results.got.length > 0, 'the final');
      expect(results.got[0]).toMatchObject({ kind: 'final' });
      expect(wordErrorRate(SENTENCES[2], results.got[0]!.text)).toBeLessThanOrEqual(0.25);
      stream.close();
    } finally {
      await stt.close();
    }
  });

  it('fails the stream (retryable) when its decoder dies, and the next utterance gets a fresh one', async () => {
    const stt = await make({ poolSize: 1 });
    try {
      await stt.ready();
      const [pid] = stt.pool.pids;
      const stream = stt.stream();
      const results = collect(stream);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[1], 16000)]) stream.push(frame);
      await until(() => stt.pool.leased === 1, 'the lease');
      process.kill(pid!, 'SIGKILL');
      stream.flush();
      const error = await results.done;
      expect(error).toBeInstanceOf(SpeechError);
      expect(error).toMatchObject({ code: 'stt_failed', retryable: true });

      const next = stt.stream();
      const nextResults = collect(next);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[1], 16000)]) next.push(frame);
      next.flush();
      await until(() => nextResults.got.length > 0, 'the final');
      expect(wordErrorRate(SENTENCES[1], nextResults.got[0]!.text)).toBeLessThanOrEqual(0.25);
      expect(stt.pool.pids).toHaveLength(1);
      expect(stt.pool.pids[0]).not.toBe(pid);
      next.close();
    } finally {
      await stt.close();
    }
  });

  it('fails the stream when a stalled decoder misses the utterance timeout, and replaces it', async () => {
    const clock = createManualClock();
    const stt = await createPocketSphinxSTT({ poolSize: 1, clock, utteranceTimeoutMs: 3000 });
    try {
      await stt.ready();
      const [pid] = stt.pool.pids;
      const stream = stt.stream();
      const results = collect(stream);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[1], 16000)]) stream.push(frame);
      await until(() => stt.pool.leased === 1, 'the lease');
      process.kill(pid!, 'SIGSTOP');
      stream.flush();
      await until(() => clock.pendingSleeps > 0, 'the timeout to start');
      clock.advance(2999);
      expect(results.got).toEqual([]);
      clock.advance(1);
      const error = await results.done;
      expect(error).toMatchObject({ code: 'stt_failed', retryable: true });
      expect((error as Error).message).toContain('within 3000 ms');
      await until(() => !isRunning(pid!), 'the stalled decoder to end');
      await until(() => stt.pool.pids.length === 1 && stt.pool.pids[0] !== pid, 'a fresh decoder');
    } finally {
      await stt.close();
    }
  });

  it('fails an utterance that waits longer than the timeout for a busy pool', async () => {
    const clock = createManualClock();
    const stt = await createPocketSphinxSTT({ poolSize: 1, clock, utteranceTimeoutMs: 3000 });
    try {
      await stt.ready();
      const holder = stt.stream();
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[0], 16000)]) holder.push(frame);
      const waiter = stt.stream();
      const results = collect(waiter);
      for (const frame of [...silence(200), ...fliteFrames(SENTENCES[2], 16000)]) waiter.push(frame);
      expect(stt.pool.waiting).toBe(1);
      waiter.flush();
      clock.advance(3000);
      expect(await results.done).toMatchObject({ code: 'stt_failed', retryable: true });
      expect(stt.pool.waiting).toBe(0);
      holder.close();
      await until(() => inUse(stt) === 0, 'the release');
    } finally {
      await stt.close();
    }
  });

  it('kills its decoders on close, and ends open streams', async () => {
    const stt = await make({ poolSize: 2 });
    await stt.ready();
    const pids = stt.pool.pids;
    expect(pids).toHaveLength(2);
    const stream = stt.stream();
    const results = collect(stream);
    for (const frame of [...silence(200), ...fliteFrames(SENTENCES[0], 16000)]) stream.push(frame);
    await stt.close();
    expect(await results.done).toBeNull();
    expect(pids.filter(isRunning)).toEqual([]);
    expect(stt.pool.pids).toEqual([]);
  });
});
