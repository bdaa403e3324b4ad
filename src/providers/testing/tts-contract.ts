import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../media/index.ts';
import type { SynthesizedAudio, TTS, TTSOptions, TTSStream } from '../speech/types.ts';

// The TTS contract (DESIGN.md section 6): what the voice session relies on from every TTS, the
// fake and the real engines alike. Each check opens a stream of a fresh subject from `makeTTS`.

export interface TTSContractOptions {
  /** Whether `speed` changes the speaking rate (then speed 2 must be clearly shorter than 1). */
  speed: boolean;
  /** Plausible ms of audio per word at speed 1 (default 100 to 1000). */
  msPerWord?: [min: number, max: number];
  /** Releases a subject after its test (pools, processes). */
  close?: (tts: TTS) => void | Promise<void>;
}

const ONE = 'Hello there, how are you today?';
const TWO = 'I am calling about your appointment.';
const LONG =
  'This is a long answer that keeps going for a while. It has a second sentence about the weather. ' +
  'And a third one about the garden behind the house. Then a fourth, to be sure it is still speaking.';
const WORDS = 'The quick brown fox jumps over the lazy dog near the quiet river bank.';
/** A stream that stopped must end within this, whatever the engine was doing. */
const PROMPT_END_MS = 1000;

/** Reads `stream.audio` to its end; fails the test if that takes over `limitMs`. */
async function drain(
  iterator: AsyncIterator<SynthesizedAudio>,
  limitMs = 15_000,
): Promise<SynthesizedAudio[]> {
  const out: SynthesizedAudio[] = [];
  const deadline = Date.now() + limitMs;
  for (;;) {
    const left = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left)));
    const next = await Promise.race([iterator.next(), timeout]);
    clearTimeout(timer);
    if (next === 'timeout') throw new Error(`audio did not end within ${limitMs} ms`);
    if (next.done) return out;
    out.push(next.value);
  }
}

const iteratorOf = (stream: TTSStream) => stream.audio[Symbol.asyncIterator]();

async function firstFrame(iterator: AsyncIterator<SynthesizedAudio>): Promise<SynthesizedAudio> {
  const next = await iterator.next();
  if (next.done) throw new Error('audio ended before its first frame');
  return next.value;
}

const durationMs = (audio: SynthesizedAudio[]) =>
  audio.reduce((ms, a) => ms + (a.frame.samples.length * 1000) / a.frame.sampleRate, 0);

function rms(audio: SynthesizedAudio[]): number {
  let sum = 0;
  let n = 0;
  for (const { frame } of audio) {
    for (const s of frame.samples) sum += s * s;
    n += frame.samples.length;
  }
  return Math.sqrt(sum / Math.max(1, n));
}

/** Checks the shape of a whole stream's audio: rates, frame sizes, segment order and marks. */
function checkSegments(tts: TTS, audio: SynthesizedAudio[], texts: string[]) {
  const full = (tts.sampleRate * FRAME_MS) / 1000;
  expect(audio.length).toBeGreaterThan(0);
  let expected = 0;
  audio.forEach((a, i) => {
    const previous = audio[i - 1];
    const starts = !previous || previous.segment !== a.segment;
    if (starts) {
      expect(a.segment).toBe(expected);
      expect(previous?.last ?? true).toBe(true);
      expect(a.text).toBe(texts[expected]);
      expected += 1;
    } else {
      expect(a.text).toBeUndefined();
    }
    expect(a.frame.sampleRate).toBe(tts.sampleRate);
    if (a.last) expect(a.frame.samples.length).toBeGreaterThan(0);
    if (a.last) expect(a.frame.samples.length).toBeLessThanOrEqual(full);
    else expect(a.frame.samples.length).toBe(full);
    if (i > 0 && !starts) expect(a.frame.at).toBeGreaterThanOrEqual(previous!.frame.at);
  });
  expect(audio.at(-1)?.last).toBe(true);
  expect(expected).toBe(texts.length);
}

export function runTTSContract(name: string, makeTTS: () => TTS, options: TTSContractOptions): void {
  describe(`TTS contract: ${name}`, () => {
    const made: TTS[] = [];
    const open = (streamOptions?: TTSOptions) => {
      const tts = makeTTS();
      made.push(tts);
      return { tts, stream: tts.stream(streamOptions) };
    };
    afterEach(async () => {
      for (const tts of made.splice(0)) await options.close?.(tts);
    });

    it('speaks each flush as a segment of 20 ms frames at its rate, text first and last marked', async () => {
      const { tts, stream } = open();
      stream.pushText('Hello there,');
      stream.pushText(' how are you today?');
      stream.flush();
      stream.pushText(`  ${TWO} `);
      stream.flush();
      stream.endInput();
      checkSegments(tts, await drain(iteratorOf(stream)), [ONE, TWO]);
    });

    it('streams: the first segment is heard before the next text exists', async () => {
      const { tts, stream } = open();
      const audio = iteratorOf(stream);
      stream.pushText(ONE);
      stream.flush();
      const first = await firstFrame(audio);
      expect(first).toMatchObject({ segment: 0, text: ONE });
      stream.pushText(TWO);
      stream.flush();
      stream.endInput();
      const rest = await drain(audio);
      checkSegments(tts, [first, ...rest], [ONE, TWO]);
    });

    it('endInput speaks the text not yet flushed, then ends the audio', async () => {
      const { tts, stream } = open();
      stream.pushText(ONE);
      stream.endInput();
      checkSegments(tts, await drain(iteratorOf(stream)), [ONE]);
    });

    it('an empty flush makes no segment; endInput with nothing ends at once', async () => {
      const first = open();
      first.stream.flush();
      first.stream.pushText('   ');
      first.stream.flush();
      first.stream.pushText(TWO);
      first.stream.flush();
      first.stream.endInput();
      checkSegments(first.tts, await drain(iteratorOf(first.stream)), [TWO]);

      const empty = open();
      empty.stream.flush();
      empty.stream.endInput();
      expect(await drain(iteratorOf(empty.stream), PROMPT_END_MS)).toEqual([]);
    });

    it('close() mid-segment ends the audio promptly, and later text is not spoken', async () => {
      const { stream } = open();
      const audio = iteratorOf(stream);
      stream.pushText(LONG);
      stream.flush();
      expect((await firstFrame(audio)).segment).toBe(0);
      stream.close();
      stream.pushText(TWO);
      stream.flush();
      const after = await drain(audio, PROMPT_END_MS);
      expect(after.every((a) => a.segment === 0)).toBe(true);
    });

    it('an abort before the first frame ends the audio promptly', async () => {
      const controller = new AbortController();
      const { stream } = open({ signal: controller.signal });
      const audio = iteratorOf(stream);
      stream.pushText(LONG);
      stream.flush();
      controller.abort();
      stream.pushText(TWO);
      stream.flush();
      const after = await drain(audio, PROMPT_END_MS);
      expect(after.every((a) => a.segment === 0)).toBe(true);
    });

    it('an abort mid-segment ends the audio promptly', async () => {
      const controller = new AbortController();
      const { stream } = open({ signal: controller.signal });
      const audio = iteratorOf(stream);
      stream.pushText(LONG);
      stream.flush();
      await firstFrame(audio);
      controller.abort();
      const after = await drain(audio, PROMPT_END_MS);
      expect(after.every((a) => a.segment === 0)).toBe(true);
    });

    it('speaks audible audio of a plausible length for its words', async () => {
      const { stream } = open();
      stream.pushText(WORDS);
      stream.endInput();
      const audio = await drain(iteratorOf(stream));
      const [min, max] = options.msPerWord ?? [100, 1000];
      const words = WORDS.split(' ').length;
      const ms = durationMs(audio);
      expect(ms).toBeGreaterThanOrEqual(words * min);
      expect(ms).toBeLessThanOrEqual(words * max);
      expect(rms(audio)).toBeGreaterThan(300);
    });

    it(
      options.speed ? 'speed 2 speaks clearly faster than speed 1' : 'speed 2 still speaks the text',
      async () => {
        const speak = async (speed: number) => {
          const { tts, stream } = open({ speed });
          stream.pushText(WORDS);
          stream.endInput();
          const audio = await drain(iteratorOf(stream));
          checkSegments(tts, audio, [WORDS]);
          return durationMs(audio);
        };
        const normal = await speak(1);
        const fast = await speak(2);
        if (options.speed) expect(fast).toBeLessThan(normal * 0.75);
        else expect(fast).toBeGreaterThan(0);
      },
    );
  });
}
