// The contract every STT adapter passes (DESIGN.md section 2: one suite per seam): the fake STT
// with data speech, PocketSphinx with flite speech, hosted vendors against their wire protocol.
// Frames are pushed faster than real time, each stamped so the audio ends when it is pushed, as a
// call's captured audio does; the adapter runs on the system clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../media/index.ts';
import type { STT, STTResult, STTStream } from '../speech/types.ts';

export interface STTContractAudio {
  /** 20 ms frames at `rate` that say `text` (their `at` is restamped by the suite). */
  speech(text: string, rate: 8000 | 16000): AudioFrame[] | Promise<AudioFrame[]>;
  /** At least two different sentences the engine recognizes. */
  sentences: readonly [string, string, ...string[]];
  /** Word error rate allowed per utterance at 16 kHz (0 = every word right). */
  maxWordErrorRate: number;
  /** Word error rate allowed at 8 kHz; absent: only that a final comes. */
  maxWordErrorRate8k?: number;
  /** How long a final may take after flush (default 5000 ms). */
  resultTimeoutMs?: number;
  /** What the STT still holds for streams (leased decoders, waiters); must drop to 0 after close. */
  inUse?(stt: STT): number;
  /** Releases the STT after the suite (kills processes). */
  dispose?(stt: STT): void | Promise<void>;
}

/** Lower case, punctuation dropped (apostrophes inside words kept), split into words. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .replace(/(^|\s)'+|'+(\s|$)/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** (substitutions + deletions + insertions) / reference words: the word-level edit distance. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return (previous[hyp.length] ?? 0) / ref.length;
}

/** How many of `reference`'s words `hypothesis` has, in order (longest common subsequence). */
export function matchedWords(reference: readonly string[], hypothesis: readonly string[]): number {
  let previous = new Array<number>(hypothesis.length + 1).fill(0);
  for (let i = 1; i <= reference.length; i += 1) {
    const current = [0];
    for (let j = 1; j <= hypothesis.length; j += 1) {
      const same = reference[i - 1] === hypothesis[j - 1];
      current.push(same ? (previous[j - 1] ?? 0) + 1 : Math.max(previous[j] ?? 0, current[j - 1] ?? 0));
    }
    previous = current;
  }
  return previous[hypothesis.length] ?? 0;
}

const FRAME_MS = 20;
const silence = (rate: 8000 | 16000, count: number): AudioFrame[] =>
  Array.from({ length: count }, () => ({
    samples: new Int16Array((rate * FRAME_MS) / 1000),
    sampleRate: rate,
    at: 0,
  }));

/** Reads a result stream in the background; tests wait for what they expect, with a time limit. */
function reader(results: AsyncIterable<STTResult>) {
  const got: STTResult[] = [];
  let ended = false;
  let error: unknown = null;
  const waiting: { wake: (() => void) | null } = { wake: null };
  const done = (async () => {
    try {
      for await (const result of results) {
        got.push(result);
        waiting.wake?.();
      }
    } catch (err) {
      error = err;
    } finally {
      ended = true;
      waiting.wake?.();
    }
  })();
  const finals = () => got.filter((r) => r.kind === 'final');
  async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (error) throw error;
      if (ended) throw new Error(`the results ended before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiting.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      waiting.wake = null;
    }
  }
  return {
    got,
    finals,
    /** Waits until `count` finals have come. */
    finalsUntil: (count: number, ms: number) => until(`final #${count}`, () => finals().length >= count, ms),
    /** Waits until the stream ends; returns how long that took. */
    async end(ms: number): Promise<number> {
      const started = Date.now();
      await until('end of the results', () => ended, ms);
      await done;
      if (error) throw error;
      return Date.now() - started;
    },
  };
}

export function runSTTContract(
  name: string,
  makeSTT: () => STT | Promise<STT>,
  audio: STTContractAudio,
): void {
  describe(`STT contract: ${name}`, () => {
    let stt: STT;
    const timeoutMs = audio.resultTimeoutMs ?? 5000;
    const [first, second] = audio.sentences;

    beforeAll(async () => {
      stt = await makeSTT();
    });
    afterAll(async () => {
      if (stt) await audio.dispose?.(stt);
    });

    /** Pushes lead-in silence, the speech, and trailing silence; `at` ends at the time of the push. */
    async function say(stream: STTStream, text: string, rate: 8000 | 16000 = 16000): Promise<number> {
      const frames = [...silence(rate, 10), ...(await audio.speech(text, rate)), ...silence(rate, 15)];
      const start = Date.now() - frames.length * FRAME_MS;
      frames.forEach((frame, i) => stream.push({ ...frame, at: start + i * FRAME_MS }));
      return start + frames.length * FRAME_MS;
    }

    function expectNoPartialsUnlessSent(got: STTResult[]): void {
      if (!stt.partials) expect(got.filter((r) => r.kind === 'partial')).toEqual([]);
    }

    it('gives a final after a flush that follows audio, with the words said, not before the audio', async () => {
      const stream = stt.stream();
      const results = reader(stream.results);
      const audioEnd = await say(stream, first);
      stream.flush();
      await results.finalsUntil(1, timeoutMs);
      stream.close();
      await results.end(timeoutMs);
      const [final] = results.finals();
      expect(wordErrorRate(first, final?.text ?? ''), `heard "${final?.text}"`).toBeLessThanOrEqual(
        audio.maxWordErrorRate,
      );
      expect(final?.at).toBeGreaterThanOrEqual(audioEnd);
      expect(results.got.at(-1)?.kind).toBe('final');
      expectNoPartialsUnlessSent(results.got);
    });

    it('gives two finals, in order, for two utterances on one stream', async () => {
      const stream = stt.stream();
      const results = reader(stream.results);
      await say(stream, first);
      stream.flush();
      await say(stream, second);
      stream.flush();
      await results.finalsUntil(2, timeoutMs);
      stream.close();
      await results.end(timeoutMs);
      const finals = results.finals();
      expect(finals).toHaveLength(2);
      expect(wordErrorRate(first, finals[0]?.text ?? ''), `heard "${finals[0]?.text}"`).toBeLessThanOrEqual(
        audio.maxWordErrorRate,
      );
      expect(wordErrorRate(second, finals[1]?.text ?? ''), `heard "${finals[1]?.text}"`).toBeLessThanOrEqual(
        audio.maxWordErrorRate,
      );
      expect(finals[1]!.at).toBeGreaterThanOrEqual(finals[0]!.at);
      expectNoPartialsUnlessSent(results.got);
      // Partials belong to the utterance in progress: none comes after the last final.
      expect(results.got.at(-1)?.kind).toBe('final');
    });

    it('gives no final for a flush without audio before it', async () => {
      const stream = stt.stream();
      const results = reader(stream.results);
      stream.flush();
      await say(stream, second);
      stream.flush();
      stream.flush();
      await say(stream, first);
      stream.flush();
      await results.finalsUntil(2, timeoutMs);
      stream.close();
      await results.end(timeoutMs);
      const finals = results.finals();
      expect(finals).toHaveLength(2);
      expect(wordErrorRate(second, finals[0]?.text ?? '')).toBeLessThanOrEqual(audio.maxWordErrorRate);
      expect(wordErrorRate(first, finals[1]?.text ?? '')).toBeLessThanOrEqual(audio.maxWordErrorRate);
    });

    it('accepts 8 kHz frames (resampled inside)', async () => {
      const stream = stt.stream();
      const results = reader(stream.results);
      const audioEnd = await say(stream, first, 8000);
      stream.flush();
      await results.finalsUntil(1, timeoutMs);
      stream.close();
      await results.end(timeoutMs);
      const [final] = results.finals();
      expect(final?.at).toBeGreaterThanOrEqual(audioEnd);
      if (audio.maxWordErrorRate8k !== undefined)
        expect(wordErrorRate(first, final?.text ?? ''), `heard "${final?.text}"`).toBeLessThanOrEqual(
          audio.maxWordErrorRate8k,
        );
    });

    it('ends the results promptly on close(), also mid-utterance, and keeps nothing running', async () => {
      const stream = stt.stream();
      const results = reader(stream.results);
      const speech = await audio.speech(first, 16000);
      for (const frame of [...silence(16000, 10), ...speech.slice(0, Math.ceil(speech.length / 2))])
        stream.push(frame);
      stream.close();
      expect(await results.end(1000)).toBeLessThan(1000);
      expect(results.finals()).toEqual([]);
      // Pushing and flushing a closed stream does nothing.
      stream.push(speech[0]!);
      stream.flush();
      await settled(() => audio.inUse?.(stt) ?? 0, timeoutMs);
      expect(audio.inUse?.(stt) ?? 0).toBe(0);
    });

    it('ends the results promptly when the signal aborts mid-utterance', async () => {
      const controller = new AbortController();
      const stream = stt.stream({ signal: controller.signal });
      const results = reader(stream.results);
      const speech = await audio.speech(second, 16000);
      for (const frame of [...silence(16000, 10), ...speech]) stream.push(frame);
      controller.abort();
      expect(await results.end(1000)).toBeLessThan(1000);
      await settled(() => audio.inUse?.(stt) ?? 0, timeoutMs);
      expect(audio.inUse?.(stt) ?? 0).toBe(0);
    });

    it('ends the results at once for a signal that had already aborted', async () => {
      const stream = stt.stream({ signal: AbortSignal.abort() });
      const results = reader(stream.results);
      const speech = await audio.speech(second, 16000);
      for (const frame of speech) stream.push(frame);
      stream.flush();
      expect(await results.end(1000)).toBeLessThan(1000);
      expect(results.got).toEqual([]);
      expect(audio.inUse?.(stt) ?? 0).toBe(0);
    });
  });
}

/** Waits (bounded) until `count()` is 0: releasing a decoder finishes its utterance first. */
async function settled(count: () => number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (count() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
