import { createAsyncQueue } from '../../core/index.ts';
import { Resampler, SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import { SpeechError, type VAD, type VADEvent, type VADOptions, type VADStream } from './types.ts';
import { createVADSegmenter } from './vad-segmenter.ts';
import { createSileroBatcher, type SileroBatcher, type SileroJob } from './vad-silero-batcher.ts';
import { SILERO_STATE, SILERO_WINDOW_MS } from './vad-silero-protocol.ts';
import { loadSileroRunner, type SileroRunner } from './vad-silero-runner.ts';
import { createSileroWindows } from './vad-silero-windows.ts';

// Silero VAD (v5, ONNX) in-process. Frames are resampled to 16 kHz and cut into 32 ms windows;
// every stream of the process shares one model, in one worker thread, and one batcher that gives
// it one window of each stream that has one per run. A window is speech from `threshold` up and
// stays speech down to `threshold - 0.15` (Silero's own hysteresis); the shared segmenter applies
// minSpeechMs/minSilenceMs. Windows of digital silence are judged 0 without the model (and reset
// its state): a silent line costs nothing. Events come a run or two (a few ms) after the audio.

export interface SileroVADOptions {
  /** Speech probability from which a window is speech (default 0.5). */
  threshold?: number;
  /** Another Silero v5 ONNX file; the one shipped with the project by default. */
  modelPath?: string;
}

/** A window whose peak is at most this (in 16-bit units) is digital silence. */
const SILENT_PEAK = 16;
const HYSTERESIS = 0.15;

export interface SileroVAD extends VAD {
  /** Model runs and windows judged by them so far, for every Silero stream of the process. */
  readonly batches: { readonly runs: number; readonly windows: number };
}

const batchers = new WeakMap<SileroRunner, SileroBatcher>();

/**
 * Loads the model (once per process) and returns the VAD; rejects with a `vad_failed`
 * SpeechError saying why when the model or its runtime cannot be loaded.
 */
export async function createSileroVAD(silero: SileroVADOptions = {}): Promise<SileroVAD> {
  const threshold = silero.threshold ?? 0.5;
  if (!(threshold > HYSTERESIS && threshold < 1)) throw new RangeError('threshold must be within 0.15..1');
  const runner = await loadSileroRunner(silero.modelPath);
  let batcher = batchers.get(runner);
  if (!batcher) {
    batcher = createSileroBatcher(runner);
    batchers.set(runner, batcher);
  }
  const shared = batcher;
  return {
    name: 'silero',
    batches: shared.stats,
    stream: (options) => createSileroStream(shared, threshold, options),
  };
}

function createSileroStream(batcher: SileroBatcher, threshold: number, options: VADOptions = {}): VADStream {
  const events = createAsyncQueue<VADEvent>();
  const segmenter = createVADSegmenter(options);
  const windows = createSileroWindows();
  // Frames of another rate go through a resampler kept for the stream (and its output buffer).
  let resampler: Resampler | null = null;
  let resampled = new Int16Array(0);
  const state = new Float32Array(SILERO_STATE);
  let probability = 0;
  let inSpeech = false;
  let inFlight = false;
  let flightAt = 0;
  let closing = false;

  const judge = (at: number, p: number) => {
    probability = p;
    inSpeech = p >= (inSpeech ? threshold - HYSTERESIS : threshold);
    const event = segmenter.judge(at, at + SILERO_WINDOW_MS, inSpeech);
    if (event) events.push(event);
  };

  const pump = () => {
    while (!inFlight && windows.count > 0 && !events.closed) {
      if (windows.headPeak() <= SILENT_PEAK) {
        const at = windows.headAt;
        windows.take(null, 0);
        state.fill(0);
        judge(at, 0);
        continue;
      }
      inFlight = true;
      batcher.enqueue(job);
    }
    if (closing && !inFlight && windows.count === 0) events.close();
  };

  const job: SileroJob = {
    state,
    fill(into, offset) {
      flightAt = windows.headAt;
      windows.take(into, offset);
    },
    judged(p) {
      inFlight = false;
      if (events.closed) return;
      judge(flightAt, p);
      pump();
    },
    failed(error) {
      inFlight = false;
      const reason = error instanceof Error ? error.message : String(error);
      events.fail(
        error instanceof SpeechError
          ? error
          : new SpeechError(`Silero VAD inference failed (${reason})`, 'vad_failed', false, error),
      );
    },
  };

  return {
    get probability() {
      return probability;
    },
    events,
    push(frame: AudioFrame) {
      if (closing || events.closed) return;
      const { samples, sampleRate } = frame;
      if (sampleRate === SESSION_RATE) windows.write(samples, samples.length, frame.at);
      else {
        if (resampler?.from !== sampleRate) resampler = new Resampler(sampleRate, SESSION_RATE);
        const room = resampler.maxOutput(samples.length);
        if (resampled.length < room) resampled = new Int16Array(room);
        const count = resampler.process(samples, resampled);
        // The output lags the input by the filter's delay: its first sample is that much earlier.
        windows.write(resampled, count, frame.at - (resampler.delay * 1000) / SESSION_RATE);
      }
      pump();
    },
    close() {
      // Windows already cut are still judged (a few ms of work); the partial one is dropped.
      closing = true;
      pump();
    },
  };
}
