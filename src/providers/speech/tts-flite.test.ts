import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import { runTTSContract } from '../testing/tts-contract.ts';
import { monoWav } from '../testing/vad-audio.ts';
import { VOICES } from '../voices.ts';
import { createFliteTTS, durationStretch, type FliteTTS } from './tts-flite.ts';
import { SpeechError, type SynthesizedAudio, type TTSStream } from './types.ts';

runTTSContract('flite', () => createFliteTTS(), {
  speed: true,
  msPerWord: [150, 800],
  close: (tts) => (tts as FliteTTS).close(),
});

async function collect(stream: TTSStream): Promise<SynthesizedAudio[]> {
  const out: SynthesizedAudio[] = [];
  for await (const a of stream.audio) out.push(a);
  return out;
}

function pcmOf(audio: SynthesizedAudio[]): Int16Array {
  const pcm = new Int16Array(audio.reduce((n, a) => n + a.frame.samples.length, 0));
  let at = 0;
  for (const { frame } of audio) {
    pcm.set(frame.samples, at);
    at += frame.samples.length;
  }
  return pcm;
}

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** Word-level edit distance between what was heard and what was said. */
function wordErrors(heard: string, said: string): number {
  const a = words(heard);
  const b = words(said);
  let row = b.map((_, j) => j + 1);
  a.forEach((word, i) => {
    const next = [i + 1];
    b.forEach((other, j) => {
      next.push(Math.min(row[j]! + 1, next[j]! + 1, (j === 0 ? i : row[j - 1]!) + (word === other ? 0 : 1)));
    });
    row = next.slice(1);
  });
  return row.at(-1) ?? a.length;
}

const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

describe('flite TTS', () => {
  const tts = createFliteTTS();
  afterAll(() => tts.close());

  it('speaks every flite voice of the catalogue at 16 kHz', async () => {
    const catalogue = VOICES.filter((v) => v.provider === 'flite');
    expect(catalogue.map((v) => v.id).sort()).toEqual([...tts.voices].sort());
    for (const voice of catalogue) {
      const stream = tts.stream({ voice: voice.id });
      stream.pushText('Good morning.');
      stream.endInput();
      const audio = await collect(stream);
      expect(audio.every((a) => a.frame.sampleRate === 16000)).toBe(true);
      const pcm = pcmOf(audio);
      expect(pcm.length / 16000, voice.id).toBeGreaterThan(0.4);
      expect(peak(pcm), voice.id).toBeGreaterThan(2000);
    }
  });

  it('speaks so that pocketsphinx (the offline STT) hears the words', async () => {
    // kal16, the voice this was written for: pocketsphinx_continuous hears the default (awb) start
    // this sentence as "hope this isn't just go" (bench case `flite-voices` measures the voices).
    const stream = tts.stream({ voice: 'kal16' });
    const text =
      'Hello, this is a test call from the voice agent. Please press one to confirm your appointment for tomorrow at three.';
    stream.pushText(text);
    stream.endInput();
    const pcm = pcmOf(await collect(stream));
    const dir = mkdtempSync(join(tmpdir(), 'parley-tts-'));
    try {
      const file = join(dir, 'speech.wav');
      writeFileSync(file, monoWav(pcm));
      const heard = execFileSync('pocketsphinx_continuous', ['-infile', file, '-logfn', '/dev/null'])
        .toString()
        .trim();
      // kal16 is heard word for word on this machine; allow one slip in the 22 words.
      expect(wordErrors(heard, text)).toBeLessThanOrEqual(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts each segment at its first word, not after flite’s leading silence', async () => {
    const stream = tts.stream();
    stream.pushText('Thanks for calling.');
    stream.endInput();
    const audio = await collect(stream);
    // Speech within the first 60 ms (flite itself starts with about 230 ms of silence here).
    expect(peak(pcmOf(audio.slice(0, 3)))).toBeGreaterThan(256);
  });

  it('speaks a paragraph as one segment, sentence by sentence, frames whole across sentences', async () => {
    const clock = createManualClock(5000);
    const timed = createFliteTTS({ clock });
    try {
      const paragraph = 'First sentence here. Second sentence there! And a third one?';
      const one = timed.stream();
      one.pushText(paragraph);
      one.endInput();
      const audio = await collect(one);
      expect(audio.filter((a) => a.text !== undefined).map((a) => a.text)).toEqual([paragraph]);
      expect(audio.filter((a) => a.last)).toHaveLength(1);
      expect(audio.slice(0, -1).every((a) => a.segment === 0 && a.frame.samples.length === 320)).toBe(true);
      // Times follow the samples from when the first audio was ready.
      expect(audio[0]!.frame.at).toBe(5000);
      expect(audio[10]!.frame.at).toBe(5200);

      const parts = timed.stream();
      for (const sentence of ['First sentence here.', 'Second sentence there!', 'And a third one?']) {
        parts.pushText(sentence);
        parts.flush();
      }
      parts.endInput();
      const separate = pcmOf(await collect(parts)).length;
      // The same speech, give or take the leading silence trimmed from segments 1 and 2.
      expect(Math.abs(pcmOf(audio).length - separate) / separate).toBeLessThan(0.2);
    } finally {
      await timed.close();
    }
  });

  it('keeps the main thread free while a long sentence is synthesized', async () => {
    const stream = tts.stream({ voice: 'rms' });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    try {
      stream.pushText(
        'I would like to confirm your appointment for tomorrow at three in the afternoon, ' +
          'and if that does not work we can find another time later in the week that suits you better.',
      );
      stream.flush();
      const first = await stream.audio[Symbol.asyncIterator]().next();
      expect(first.done).toBe(false);
      // The rms voice takes 150-350 ms of synchronous wasm here: on the main thread no tick would run.
      expect(ticks).toBeGreaterThanOrEqual(5);
    } finally {
      clearInterval(ticker);
      stream.close();
    }
  });

  it('serves many streams at once, each its own audio', async () => {
    const texts = [
      'Yes.',
      'No, thank you.',
      'Maybe later in the week, after lunch on Thursday or Friday.',
      'Okay.',
    ];
    const voices = ['kal16', 'slt', 'rms', 'awb'];
    const results = await Promise.all(
      texts.map((text, i) => {
        const stream = tts.stream({ voice: voices[i]! });
        stream.pushText(text);
        stream.endInput();
        return collect(stream);
      }),
    );
    results.forEach((audio, i) => expect(audio[0]?.text).toBe(texts[i]));
    const seconds = results.map((audio) => pcmOf(audio).length / 16000);
    expect(seconds[2]).toBeGreaterThan(2 * Math.max(seconds[0]!, seconds[1]!, seconds[3]!));
  });

  it('fails the audio of an unknown voice, and of a closed TTS', async () => {
    const bad = tts.stream({ voice: 'nobody' });
    bad.pushText('Hello.');
    bad.endInput();
    const error = await collect(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpeechError);
    expect(error).toMatchObject({ code: 'tts_failed', retryable: false });

    const closed = createFliteTTS();
    await closed.close();
    const late = closed.stream();
    late.pushText('Hello.');
    late.endInput();
    expect(await collect(late).catch((e: unknown) => e)).toMatchObject({ code: 'tts_unavailable' });
    expect(() => createFliteTTS({ voice: 'nobody' })).toThrow(RangeError);
  });

  it('maps voice_speed to flite’s duration stretch, within 0.25x to 4x', () => {
    expect(durationStretch(undefined)).toBe(1);
    expect(durationStretch(2)).toBe(0.5);
    expect(durationStretch(0.5)).toBe(2);
    expect(durationStretch(100)).toBe(0.25);
    expect(durationStretch(0.01)).toBe(4);
    expect(durationStretch(0)).toBe(1);
    expect(durationStretch(Number.NaN)).toBe(1);
  });
});
