// The shapes Silero VAD v5 works with, and the messages between the Silero runner (main thread)
// and its worker thread. Batches live in buffers shared by both threads, allocated once: the main
// thread writes the windows and states, the worker runs the model and writes back the states and
// probabilities; the messages carry only the batch size. (Transferring fresh buffers per batch
// instead cost about 1 ms per message on the main thread, in external-memory bookkeeping and GC.)

/** Samples the model sees per window at 16 kHz: 64 of context (the previous window's end) + 512. */
export const SILERO_CONTEXT = 64;
export const SILERO_WINDOW = 512;
export const SILERO_INPUT = SILERO_CONTEXT + SILERO_WINDOW;
/** A window's duration: the model runs at 16 kHz. */
export const SILERO_WINDOW_MS = (SILERO_WINDOW * 1000) / 16000;
/** The model's recurrent state per stream: [2][128]. */
export const SILERO_STATE = 256;
/** Windows per run at most; more wait for the next run. */
export const SILERO_MAX_BATCH = 512;

export interface SileroSharedBuffers {
  /** [n, SILERO_INPUT] floats. */
  input: SharedArrayBuffer;
  /** [2, n, 128] floats; the worker replaces them by the next states. */
  state: SharedArrayBuffer;
  /** [n] floats, written by the worker. */
  probabilities: SharedArrayBuffer;
}

export type ToSileroWorker =
  { kind: 'load'; path: string; buffers: SileroSharedBuffers } | { kind: 'run'; n: number };

export type FromSileroWorker =
  | { kind: 'loaded' }
  | { kind: 'load_failed'; message: string }
  | { kind: 'ran' }
  | { kind: 'run_failed'; message: string };
