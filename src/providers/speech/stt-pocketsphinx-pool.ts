// A small pool of long-lived decoder processes shared by every call of this Parley process. A
// decoder holds the 37 MB model (about 100 MB resident) and loads it once (0.3-0.7 s), so an
// utterance never waits for a process to start: it leases a loaded decoder when its audio starts,
// streams the audio in, and gives the decoder back when the result is printed. A decoder that dies
// or stalls is replaced by a fresh one; its utterance fails with a retryable error.
//
// Bands: streaming decoding normalizes features by a running cepstral mean that the decoder
// carries from one utterance to the next (over its last 5-8 s of speech). Telephone audio
// (narrowband, resampled up from 8 kHz) has a very different mean from wideband audio, and a
// decoder whose mean comes from the other band gets most words wrong until it has adapted. So each
// decoder remembers the band it last heard, a lease prefers an idle decoder of its band, and the
// pool starts some of its decoders (`telephoneDecoders`) with a telephone-band initial mean.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock, Logger } from '../../core/index.ts';
import { pocketSphinxModel } from './stt-pocketsphinx-availability.ts';
import { startDecoder, type Decoder } from './stt-pocketsphinx-decoder.ts';
import { SpeechError } from './types.ts';

export interface DecoderPoolOptions {
  binaryPath: string;
  modelDir: string;
  /** Decoder processes (default 2). */
  size: number;
  /** How many decoders start with the telephone-band mean (the others with the model's). */
  telephoneDecoders: number;
  secondPass: boolean;
  extraArgs: readonly string[];
  /** From the end of an utterance's audio to its result, at most (ms of `clock`). */
  utteranceTimeoutMs: number;
  /** Model loading, at most (ms of real time). */
  startTimeoutMs: number;
  clock: Clock;
  logger: Logger;
}

/** One utterance on a leased decoder. */
export interface DecoderLease {
  /** The utterance's audio, 16 kHz mono, as it arrives. */
  write(samples: Int16Array): void;
  /**
   * Ends the utterance: resolves with its words and gives the decoder back. Rejects with a
   * retryable SpeechError('stt_failed') when the decoder dies or misses the deadline (then it is
   * killed and replaced). The deadline is a time of the pool's clock, by default the utterance
   * timeout from now.
   */
  finish(deadline?: number): Promise<string>;
}

/** `narrow`: telephone audio resampled up from 8 kHz; `wide`: audio captured at 16 kHz or more. */
export type Band = 'wide' | 'narrow';

/**
 * The running cepstral mean of the en-us front end after a couple of minutes of telephone speech
 * (flite kal16 through G.711 mu-law at 8 kHz, resampled up by media's Resampler, averaged over
 * the decoder's updates); the model's own initial mean is that of wideband speech.
 */
export const NARROWBAND_CMNINIT =
  '41.52,33.22,-33.47,37.65,-20.11,-5.93,15.92,-29.51,15.83,-6.78,-2.86,12.42,-14.50';

export interface DecoderPool {
  /**
   * Waits for a loaded decoder, preferring an idle one that last heard `band`; rejects with the
   * signal's reason when aborted first.
   */
  acquire(band: Band, signal?: AbortSignal): Promise<DecoderLease>;
  /** Resolves once every decoder of the first start has loaded its model. */
  ready(): Promise<void>;
  /** Process ids of the live decoders (for RSS figures). */
  readonly pids: number[];
  /** Leases not yet finished. */
  readonly leased: number;
  /** Callers waiting for a decoder. */
  readonly waiting: number;
  /** Kills the decoders and removes their pipes; waiting callers get an error. */
  close(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;
const MIN_DECODE_MS = 1000;

export async function createDecoderPool(options: DecoderPoolOptions): Promise<DecoderPool> {
  const { clock, logger } = options;
  const dir = await mkdtemp(join(tmpdir(), 'parley-pocketsphinx-'));
  const stop = new AbortController();
  const narrowParams = await narrowbandFeatParams(options.modelDir, dir);
  const live = new Set<Decoder>();
  /** The band each live decoder last heard (its running mean follows it). */
  const bands = new Map<Decoder, Band>();
  const idle: Decoder[] = [];
  // Waiters are served in order, whatever their band: fairness first.
  const waiters: { give: (decoder: Decoder) => void; fail: (error: unknown) => void }[] = [];
  let named = 0;
  let leased = 0;
  let failedStarts = 0;
  let closed = false;

  function offer(decoder: Decoder): void {
    if (closed || !decoder.alive) return;
    const waiter = waiters.shift();
    if (waiter) waiter.give(decoder);
    else idle.push(decoder);
  }

  function spawnDecoder(band: Band): Decoder {
    named += 1;
    const decoder = startDecoder({
      binaryPath: options.binaryPath,
      modelDir: options.modelDir,
      dir,
      name: `d${named}`,
      ...(band === 'narrow' && narrowParams ? { featParams: narrowParams } : {}),
      secondPass: options.secondPass,
      extraArgs: options.extraArgs,
      startTimeoutMs: options.startTimeoutMs,
    });
    live.add(decoder);
    bands.set(decoder, band);
    let loaded = false;
    decoder.whenReady().then(
      () => {
        loaded = true;
        failedStarts = 0;
        offer(decoder);
      },
      () => undefined,
    );
    void decoder.ended.then((error) => {
      const lastBand = bands.get(decoder) ?? band;
      live.delete(decoder);
      bands.delete(decoder);
      const at = idle.indexOf(decoder);
      if (at >= 0) idle.splice(at, 1);
      if (closed) return;
      if (!loaded) failedStarts += 1;
      // A decoder that cannot even start is retried less and less often, never in a tight loop.
      const backoffMs = failedStarts === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 500 * 2 ** (failedStarts - 1));
      logger.warn({ decoder: decoder.name, err: error.message, backoffMs }, 'pocketsphinx decoder replaced');
      clock.sleep(backoffMs, stop.signal).then(
        () => spawnDecoder(lastBand),
        () => undefined,
      );
    });
    return decoder;
  }

  function lease(decoder: Decoder, band: Band): DecoderLease {
    leased += 1;
    bands.set(decoder, band);
    let finished: Promise<string> | null = null;
    return {
      write: (samples) => decoder.write(samples),
      finish(deadline = clock.now() + options.utteranceTimeoutMs) {
        finished ??= (async () => {
          const timer = new AbortController();
          // A decoder handed the utterance late (the pool was busy) still gets a moment: killing
          // it for a wait it did not cause would cost a healthy process.
          const allowed = Math.max(
            deadline - clock.now(),
            Math.min(MIN_DECODE_MS, options.utteranceTimeoutMs),
          );
          const timeout = clock.sleep(allowed, timer.signal).then(
            () => {
              const message = `pocketsphinx did not finish an utterance within ${options.utteranceTimeoutMs} ms`;
              decoder.kill(message);
              throw new SpeechError(message, 'stt_failed', true);
            },
            () => new Promise<never>(() => undefined),
          );
          try {
            const text = await Promise.race([decoder.finish(), timeout]);
            // The decoder readies itself for the next utterance; it goes back once it has.
            decoder.whenReady().then(
              () => offer(decoder),
              () => undefined,
            );
            return text;
          } finally {
            timer.abort();
            leased -= 1;
          }
        })();
        return finished;
      },
    };
  }

  const closedError = () => new SpeechError('the pocketsphinx pool is closed', 'stt_failed', false);
  const first = Array.from({ length: options.size }, (_, i) =>
    spawnDecoder(i < options.size - options.telephoneDecoders ? 'wide' : 'narrow'),
  );

  return {
    acquire(band, signal) {
      if (closed) return Promise.reject(closedError());
      if (signal?.aborted) return Promise.reject(signal.reason);
      const at = idle.findIndex((decoder) => bands.get(decoder) === band);
      const [decoder] = idle.splice(at >= 0 ? at : 0, 1);
      if (decoder) return Promise.resolve(lease(decoder, band));
      return new Promise<DecoderLease>((resolve, reject) => {
        const waiter = {
          give(given: Decoder) {
            signal?.removeEventListener('abort', onAbort);
            resolve(lease(given, band));
          },
          fail(error: unknown) {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        };
        const onAbort = () => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    async ready() {
      await Promise.all(first.map((decoder) => decoder.whenReady()));
    },
    get pids() {
      return [...live].flatMap((decoder) => (decoder.pid === undefined ? [] : [decoder.pid]));
    },
    get leased() {
      return leased;
    },
    get waiting() {
      return waiters.length;
    },
    async close() {
      if (closed) return;
      closed = true;
      stop.abort();
      for (const waiter of waiters.splice(0)) waiter.fail(closedError());
      const decoders = [...live];
      for (const decoder of decoders) decoder.kill('was closed');
      await Promise.all(decoders.map((decoder) => decoder.exited));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A copy of the model's feat.params with the telephone-band initial mean, in `dir`; null when the
 * model has none (the decoders then all start from the model's defaults).
 */
async function narrowbandFeatParams(modelDir: string, dir: string): Promise<string | null> {
  const own = await readFile(join(pocketSphinxModel(modelDir).hmm, 'feat.params'), 'utf8').catch(() => null);
  if (own === null) return null;
  const lines = own.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('-cmninit'));
  const path = join(dir, 'narrowband.feat.params');
  await writeFile(path, [...lines, `-cmninit ${NARROWBAND_CMNINIT}`, ''].join('\n'));
  return path;
}
