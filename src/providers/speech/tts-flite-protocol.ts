// Messages between the flite pool (main thread) and its worker threads.
import type { FliteRequest } from './tts-flite-synth.ts';
import type { WasmModule } from './tts-flite-wasm.ts';

export type ToFliteWorker =
  /** First message: the module compiled once by the main thread (shared, not recompiled). */
  | { kind: 'init'; module: WasmModule; warmUpVoice: string }
  | { kind: 'synthesize'; id: number; request: FliteRequest };

export type FromFliteWorker =
  | { kind: 'ready' }
  /** `samples` is the buffer of 16-bit PCM at SESSION_RATE, transferred. */
  | { kind: 'done'; id: number; samples: ArrayBuffer; synthesisMs: number }
  | { kind: 'failed'; id: number; message: string };
