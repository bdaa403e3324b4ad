// The offline STT: CMU PocketSphinx (Debian `pocketsphinx` 0.8+5prealpha with the
// `pocketsphinx-en-us` model), run as a small pool of long-lived decoder processes shared by every
// call (stt-pocketsphinx-pool.ts). Per stream:
//   - frames are resampled to 16 kHz: the en-us model is wideband, and 8 kHz audio fed as such
//     gives no words at all. Telephone audio (G.711 at 8 kHz) is resampled up and goes to decoders
//     tuned to the telephone band; it is still recognized worse than wideband audio (bench/RESULTS.md,
//     case `stt`). Give the STT telephone audio at 8 kHz, as it arrives: audio resampled to 16 kHz
//     before it gets here is taken as wideband;
//   - a loudness gate (stt-pocketsphinx-gate.ts) leases a decoder when speech starts, with a
//     pre-roll of the audio just before it; the audio then streams into the decoder as it comes,
//     so decoding runs while the caller speaks and the final result follows `flush()` by tens of ms;
//   - `flush()` ends the utterance; the decoder prints its words and goes back to the pool.
//     Silence without a flush (`idleReleaseMs`) or a very long stretch (`maxSegmentMs`) also gives
//     the decoder back; the words decoded so far are kept for the next final.
// Not supported: partial results (the binary prints only whole utterances), `keywords` (its
// keyword-spotting mode replaces transcription with spotting of the listed phrases only, and it
// is chosen per process at start while the processes are shared by calls; favouring words inside
// a transcription would need a rebuilt language model), and languages other than US English
// (`language` is ignored). Confidence is not given (the binary prints an unnormalized score only).
import { createAsyncQueue, silentLogger, systemClock, type Clock, type Logger } from '../../core/index.ts';
import { Resampler, SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import {
  requirePocketSphinx,
  type PocketSphinxInstall,
  POCKETSPHINX_MODEL_DIR,
} from './stt-pocketsphinx-availability.ts';
import { createPreroll, createSpeechGate, type SpeechGateOptions } from './stt-pocketsphinx-gate.ts';
import { createDecoderPool, type DecoderPool } from './stt-pocketsphinx-pool.ts';
import { openSegment, type Segment } from './stt-pocketsphinx-segment.ts';
import type { STT, STTOptions, STTResult, STTStream } from './types.ts';

export interface PocketSphinxSTTOptions extends PocketSphinxInstall {
  /** Decoder processes shared by every stream of this provider (default 2; ~100 MB each). */
  poolSize?: number;
  /**
   * How many of them start tuned to telephone audio (8 kHz); the others start tuned to wideband
   * audio. Default: half the pool, rounded down. A decoder adapts to what it hears within a few
   * seconds of speech either way; this spares the first utterances. Use `poolSize` for a
   * telephone-only deployment, 0 for one without telephone calls.
   */
  telephoneDecoders?: number;
  /**
   * From `flush()` to the final result, at most (default 4000 ms of `clock`); then the stream
   * fails (stt_failed, retryable) and a stalled decoder is replaced. A decoder that got the
   * utterance late because the pool was busy still gets 1 s, or the held audio's length if that is
   * longer, to finish it.
   */
  utteranceTimeoutMs?: number;
  /**
   * How long a decoder may take to get ready (loading the model at start, reopening its audio pipe
   * after each result) before it is replaced (default 30000 ms of real time).
   */
  startTimeoutMs?: number;
  /** Audio kept from before the gate opens (default 300 ms). */
  prerollMs?: number;
  /** Audio below the gate after which the decoder goes back without a flush (default 1500 ms). */
  idleReleaseMs?: number;
  /** The longest stretch decoded in one go (default 20000 ms). */
  maxSegmentMs?: number;
  gate?: SpeechGateOptions;
  /**
   * Run pocketsphinx's second search pass (`-fwdflat yes`) at the end of each utterance: it adds
   * delay after the flush that grows with the utterance's length (default false).
   */
  secondPass?: boolean;
  /** More pocketsphinx flags, e.g. `['-beam', '1e-40']` (not the adapter's own: each is given once). */
  decoderArgs?: string[];
  clock?: Clock;
  logger?: Logger;
}

export interface PocketSphinxSTT extends STT {
  /** Resolves once every decoder has loaded its model (streams work before that; they wait). */
  ready(): Promise<void>;
  readonly pool: Pick<DecoderPool, 'pids' | 'leased' | 'waiting'>;
  /** Ends every stream and kills the decoders. */
  close(): Promise<void>;
}

/** Speech becomes an utterance after this many voiced frames in a row (a click is one frame). */
const ONSET_FRAMES = 2;
const samplesOf = (ms: number) => Math.round((ms * SESSION_RATE) / 1000);

/**
 * Starts the decoder pool. Rejects with SpeechError('stt_unavailable') naming what is missing and
 * the install command when PocketSphinx or its model is not installed.
 */
export async function createPocketSphinxSTT(options: PocketSphinxSTTOptions = {}): Promise<PocketSphinxSTT> {
  const binaryPath = await requirePocketSphinx(options);
  const clock = options.clock ?? systemClock;
  const poolSize = Math.max(1, Math.floor(options.poolSize ?? 2));
  const utteranceTimeoutMs = options.utteranceTimeoutMs ?? 4000;
  const prerollSamples = samplesOf(options.prerollMs ?? 300);
  const idleSamples = samplesOf(options.idleReleaseMs ?? 1500);
  const maxSegmentSamples = samplesOf(options.maxSegmentMs ?? 20_000);
  const pool = await createDecoderPool({
    binaryPath,
    modelDir: options.modelDir ?? POCKETSPHINX_MODEL_DIR,
    size: poolSize,
    telephoneDecoders: Math.max(0, Math.min(poolSize, options.telephoneDecoders ?? Math.floor(poolSize / 2))),
    secondPass: options.secondPass ?? false,
    extraArgs: options.decoderArgs ?? [],
    utteranceTimeoutMs,
    startTimeoutMs: options.startTimeoutMs ?? 30_000,
    clock,
    logger: options.logger ?? silentLogger(),
  });
  const open = new Set<() => void>();

  function stream(streamOptions: STTOptions = {}): STTStream {
    const { signal } = streamOptions;
    const results = createAsyncQueue<STTResult>();
    const gate = createSpeechGate(options.gate);
    const preroll = createPreroll(prerollSamples);
    let resampler: Resampler | null = null;
    let segment: Segment | null = null;
    let segmentSamples = 0;
    let quietSamples = 0;
    let voicedRun = 0;
    /** The words of the stretches ended since the last flush, in order. */
    let pieces: Promise<string>[] = [];
    let heardAudio = false;
    let finals = Promise.resolve();
    let closed = false;

    function shut(): void {
      if (closed) return;
      closed = true;
      open.delete(close);
      signal?.removeEventListener('abort', close);
      segment?.abandon();
      segment = null;
      pieces = [];
    }
    function close(): void {
      shut();
      results.close();
    }
    function fail(error: unknown): void {
      if (closed) return;
      shut();
      results.fail(error);
    }

    function endSegment(): void {
      if (!segment) return;
      const words = segment.end();
      segment = null;
      words.catch(fail);
      pieces.push(words);
    }

    /** The frame at 16 kHz; a new array each time, since the decoder pipe may still hold the last. */
    function at16k(frame: AudioFrame): Int16Array {
      if (frame.sampleRate === SESSION_RATE) return frame.samples;
      if (resampler?.from !== frame.sampleRate) resampler = new Resampler(frame.sampleRate, SESSION_RATE);
      const out = new Int16Array(resampler.maxOutput(frame.samples.length));
      const written = resampler.process(frame.samples, out);
      return written === out.length ? out : out.subarray(0, written);
    }

    if (signal?.aborted) close();
    else {
      signal?.addEventListener('abort', close, { once: true });
      open.add(close);
    }

    return {
      results,
      push(frame) {
        if (closed) return;
        heardAudio = true;
        const samples = at16k(frame);
        const voiced = gate.voiced(samples);
        voicedRun = voiced ? voicedRun + 1 : 0;
        if (!segment) {
          if (voicedRun < ONSET_FRAMES) {
            preroll.push(samples);
            return;
          }
          // Telephone audio comes at 8 kHz; anything at 16 kHz or more is taken as wideband.
          const band = frame.sampleRate < SESSION_RATE ? 'narrow' : 'wide';
          segment = openSegment({ pool, band, clock, timeoutMs: utteranceTimeoutMs }, preroll.take());
          segmentSamples = 0;
          quietSamples = 0;
        }
        segment.write(samples);
        segmentSamples += samples.length;
        quietSamples = voiced ? 0 : quietSamples + samples.length;
        if (quietSamples >= idleSamples || segmentSamples >= maxSegmentSamples) endSegment();
      },
      flush() {
        if (closed) return;
        endSegment();
        if (!heardAudio) return;
        heardAudio = false;
        const words = pieces;
        pieces = [];
        finals = finals
          .then(async () => {
            const texts = await Promise.all(words);
            if (closed) return;
            const text = texts.map(cleanWords).filter(Boolean).join(' ');
            results.push({ kind: 'final', text, at: clock.now() });
          })
          .catch(fail);
      },
      close,
    };
  }

  return {
    name: 'pocketsphinx',
    partials: false,
    stream,
    ready: () => pool.ready(),
    pool,
    async close() {
      for (const closeStream of [...open]) closeStream();
      await pool.close();
    },
  };
}

/** Alternate pronunciations print as `word(2)`; the caller wants the word. */
function cleanWords(text: string): string {
  return text
    .replace(/\(\d+\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
