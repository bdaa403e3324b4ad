// The worker thread that runs Silero for every VAD stream of the process. onnxruntime-node's
// `run` is synchronous on the calling thread (its promise only defers the call with setImmediate),
// and a batch of 300 windows takes 10-20 ms: on the main thread that would stall every call's
// 20 ms frame loop, so the model lives here.
import { parentPort } from 'node:worker_threads';
import type * as OnnxRuntime from 'onnxruntime-node';
import {
  SILERO_INPUT,
  SILERO_MAX_BATCH,
  SILERO_STATE,
  type FromSileroWorker,
  type SileroSharedBuffers,
  type ToSileroWorker,
} from './vad-silero-protocol.ts';

const port = parentPort;
if (!port) throw new Error('vad-silero-worker runs as a worker thread');

type Ort = typeof OnnxRuntime;
type Tensor = OnnxRuntime.Tensor;
type Session = OnnxRuntime.InferenceSession;

let model: { ort: Ort; session: Session; sr: Tensor; shared: SileroSharedBuffers } | null = null;
// onnxruntime-node refuses views of shared memory: batches are copied into these first.
const input = new Float32Array(SILERO_MAX_BATCH * SILERO_INPUT);
const state = new Float32Array(SILERO_MAX_BATCH * SILERO_STATE);
const reply = (message: FromSileroWorker) => port.postMessage(message);
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function load(path: string, shared: SileroSharedBuffers): Promise<void> {
  let ort: Ort;
  try {
    ort = await import('onnxruntime-node');
  } catch (err) {
    reply({ kind: 'load_failed', message: `onnxruntime-node could not be loaded (${reason(err)})` });
    return;
  }
  try {
    const session = await ort.InferenceSession.create(path, {
      // One thread: this worker is the model's only user, and the rest of the node needs its cores.
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
    const inputs = session.inputNames.join(',');
    const outputs = session.outputNames.join(',');
    if (inputs !== 'input,state,sr' || outputs !== 'output,stateN') {
      throw new Error(`inputs ${inputs} and outputs ${outputs} are not those of Silero VAD v5`);
    }
    model = { ort, session, sr: new ort.Tensor('int64', BigInt64Array.from([16000n]), []), shared };
    reply({ kind: 'loaded' });
  } catch (err) {
    reply({
      kind: 'load_failed',
      message: `Silero VAD model at ${path} could not be loaded (${reason(err)})`,
    });
  }
}

async function run(n: number): Promise<void> {
  try {
    if (!model) throw new Error('model not loaded');
    const { ort, session, sr, shared } = model;
    const inputs = input.subarray(0, n * SILERO_INPUT);
    const states = state.subarray(0, n * SILERO_STATE);
    inputs.set(new Float32Array(shared.input, 0, n * SILERO_INPUT));
    states.set(new Float32Array(shared.state, 0, n * SILERO_STATE));
    const out = await session.run({
      input: new ort.Tensor('float32', inputs, [n, SILERO_INPUT]),
      state: new ort.Tensor('float32', states, [2, n, SILERO_STATE / 2]),
      sr,
    });
    new Float32Array(shared.state, 0, n * SILERO_STATE).set(out.stateN!.data as Float32Array);
    new Float32Array(shared.probabilities, 0, n).set(out.output!.data as Float32Array);
    reply({ kind: 'ran' });
  } catch (err) {
    reply({ kind: 'run_failed', message: reason(err) });
  }
}

port.on('message', (message: ToSileroWorker) => {
  if (message.kind === 'load') void load(message.path, message.buffers);
  else void run(message.n);
});
