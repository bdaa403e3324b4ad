// A worker thread of the flite pool: runs syntheses one at a time, off the main thread, so a
// long sentence (up to ~350 ms of synchronous wasm for the rms voice) never stalls the playout
// of other calls.
import { parentPort } from 'node:worker_threads';
import { toSessionRate } from './tts-flite-rate.ts';
import { synthesizeFlite } from './tts-flite-synth.ts';
import type { FromFliteWorker, ToFliteWorker } from './tts-flite-protocol.ts';
import type { WasmModule } from './tts-flite-wasm.ts';

const port = parentPort;
if (!port) throw new Error('tts-flite-worker runs as a worker thread');

let module: WasmModule | null = null;
const reply = (message: FromFliteWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

port.on('message', (message: ToFliteWorker) => {
  if (message.kind === 'init') {
    module = message.module;
    // The first run compiles flite's functions (lazily, per function): pay it before a caller waits.
    synthesizeFlite(module, {
      voice: message.warmUpVoice,
      text: 'Hello.',
      durationStretch: 1,
      trimLeadingSilence: true,
    });
    reply({ kind: 'ready' });
    return;
  }
  const started = performance.now();
  try {
    if (!module) throw new Error('flite worker used before init');
    const audio = toSessionRate(synthesizeFlite(module, message.request));
    // The samples own their buffer unless trimmed; copy a trimmed view so only PCM is transferred.
    const samples =
      audio.byteOffset === 0 && audio.byteLength === audio.buffer.byteLength ? audio : audio.slice();
    reply(
      {
        kind: 'done',
        id: message.id,
        samples: samples.buffer as ArrayBuffer,
        synthesisMs: performance.now() - started,
      },
      [samples.buffer as ArrayBuffer],
    );
  } catch (err) {
    reply({ kind: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) });
  }
});
