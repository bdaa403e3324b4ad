// The process's flite worker pool: a few worker threads shared by every flite TTS stream, so
// synthesis (synchronous wasm, 15-350 ms per sentence) never blocks the main thread that paces
// 20 ms frames. Jobs run in arrival order; each stream has at most one job queued or running, so
// streams take turns. Idle workers are unref'd: they never keep the process alive.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { spawnSiblingWorker } from '../../core/index.ts';
import { SpeechError } from './types.ts';
import { fliteModule } from './tts-flite-module.ts';
import type { FromFliteWorker, ToFliteWorker } from './tts-flite-protocol.ts';
import type { FliteRequest } from './tts-flite-synth.ts';
import { DEFAULT_FLITE_VOICE } from './tts-flite-voices.ts';

/** A running synthesis longer than this is stuck: its worker is replaced. */
const JOB_TIMEOUT_MS = 30_000;

export interface FliteSynthesis {
  /** 16-bit PCM at SESSION_RATE. */
  samples: Int16Array;
  /** Time the worker spent, instantiation included. */
  synthesisMs: number;
}

export interface FlitePool {
  readonly size: number;
  /** Synthesizes in a worker; rejects with the signal's reason when aborted first. */
  synthesize(request: FliteRequest, signal?: AbortSignal): Promise<FliteSynthesis>;
  /** Compiles flite and starts every worker now rather than at the first synthesis. */
  warm(): Promise<void>;
}

export interface FlitePoolLease {
  pool: FlitePool;
  /** Gives the lease back; the last one stops the workers. */
  release(): Promise<void>;
}

interface Job {
  id: number;
  request: FliteRequest;
  resolve(result: FliteSynthesis): void;
  reject(error: unknown): void;
  settled: boolean;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

interface Slot {
  worker: Worker;
  /** Settles when the worker is ready, or fails when it is gone first. */
  ready: Promise<void>;
  settleReady: (error?: unknown) => void;
  isReady: boolean;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/** Workers per process by default: one core is left to the main thread. */
export const defaultFliteWorkers = (): number => Math.max(1, Math.min(2, availableParallelism() - 1));

let shared: { pool: ReturnType<typeof createFlitePool>; leases: number } | null = null;

/**
 * A lease on the process's pool, created with `workers` threads by the first lease (later leases
 * share it as it is).
 */
export function acquireFlitePool(options: { workers?: number } = {}): FlitePoolLease {
  if (!shared) shared = { pool: createFlitePool(options.workers ?? defaultFliteWorkers()), leases: 0 };
  const current = shared;
  current.leases += 1;
  let released = false;
  return {
    pool: current.pool,
    async release() {
      if (released) return;
      released = true;
      current.leases -= 1;
      if (current.leases > 0) return;
      if (shared === current) shared = null;
      await current.pool.stop();
    },
  };
}

/** A flite worker thread. */
export function spawnFliteWorker(): Worker {
  return spawnSiblingWorker(import.meta.url, 'tts-flite-worker');
}

/** A pool of its own (the process shares one through `acquireFlitePool`); `spawn` for tests. */
export function createFlitePool(size: number, spawn: () => Worker = spawnFliteWorker) {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`flite pool size must be >= 1, got ${size}`);
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let stopped = false;

  const settle = (job: Job, outcome: { result: FliteSynthesis } | { error: unknown }) => {
    if (job.settled) return;
    job.settled = true;
    job.signal?.removeEventListener('abort', job.onAbort);
    if ('result' in outcome) job.resolve(outcome.result);
    else job.reject(outcome.error);
  };

  const lost = (message: string, cause?: unknown) =>
    new SpeechError(`flite worker ${message}`, 'tts_failed', true, cause);

  function retire(slot: Slot, error: unknown) {
    const at = slots.indexOf(slot);
    if (at < 0) return;
    slots.splice(at, 1);
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.job) settle(slot.job, { error });
    slot.settleReady(error);
    // A worker that never got ready would fail the same way again: fail the waiting jobs too.
    if (!slot.isReady) while (queue.length > 0) settle(queue.shift()!, { error });
    void slot.worker.terminate();
    dispatch();
  }

  function startSlot(): Slot {
    const worker = spawn();
    let settleReady: Slot['settleReady'] = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      settleReady = (error) => (error === undefined ? resolve() : reject(error));
    });
    ready.catch(() => undefined); // only warm() waits on it
    const slot: Slot = { worker, ready, settleReady, isReady: false, job: null, timer: null };
    slots.push(slot);
    worker.on('message', (message: FromFliteWorker) => {
      if (message.kind === 'ready') {
        slot.isReady = true;
        slot.settleReady();
        dispatch();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      slot.job = null;
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      if (message.kind === 'done') {
        settle(job, {
          result: { samples: new Int16Array(message.samples), synthesisMs: message.synthesisMs },
        });
      } else {
        settle(job, { error: new SpeechError(`flite failed: ${message.message}`, 'tts_failed', false) });
      }
      dispatch();
    });
    worker.on('error', (err) => retire(slot, lost('failed', err)));
    worker.on('exit', (code) => retire(slot, lost(`exited with code ${code}`)));
    fliteModule().then(
      (module) => {
        const init: ToFliteWorker = { kind: 'init', module, warmUpVoice: DEFAULT_FLITE_VOICE };
        worker.postMessage(init);
      },
      (err: unknown) =>
        retire(slot, new SpeechError('flite.wasm could not be loaded', 'tts_unavailable', false, err)),
    );
    return slot;
  }

  function dispatch() {
    if (stopped) return;
    for (const slot of slots) {
      if (!slot.isReady || slot.job) continue;
      const job = queue.shift();
      if (!job) break;
      slot.job = job;
      slot.timer = setTimeout(() => retire(slot, lost(`took over ${JOB_TIMEOUT_MS} ms`)), JOB_TIMEOUT_MS);
      slot.timer.unref();
      const message: ToFliteWorker = { kind: 'synthesize', id: job.id, request: job.request };
      slot.worker.postMessage(message);
    }
    // Start workers while jobs wait and the pool is not full; keep only busy or booting ones ref'd.
    const waiting = queue.length - slots.filter((s) => !s.isReady).length;
    for (let i = 0; i < waiting && slots.length < size; i += 1) startSlot();
    for (const slot of slots) {
      if (slot.job || (!slot.isReady && queue.length > 0)) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  return {
    size,
    synthesize(request: FliteRequest, signal?: AbortSignal): Promise<FliteSynthesis> {
      if (stopped)
        return Promise.reject(new SpeechError('the flite pool is closed', 'tts_unavailable', false));
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<FliteSynthesis>((resolve, reject) => {
        const job: Job = {
          id: nextId++,
          request,
          resolve,
          reject,
          settled: false,
          signal,
          onAbort: () => {
            // Queued: forget it. Running: the worker finishes it and the result is dropped.
            const at = queue.indexOf(job);
            if (at >= 0) queue.splice(at, 1);
            settle(job, { error: signal?.reason });
            dispatch();
          },
        };
        signal?.addEventListener('abort', job.onAbort, { once: true });
        queue.push(job);
        dispatch();
      });
    },
    async warm(): Promise<void> {
      const closed = () => new SpeechError('the flite pool is closed', 'tts_unavailable', false);
      if (stopped) throw closed();
      await fliteModule();
      if (stopped) throw closed();
      while (slots.length < size) startSlot();
      for (const slot of slots) slot.worker.ref();
      try {
        await Promise.all(slots.map((slot) => slot.ready));
      } finally {
        dispatch();
      }
    },
    async stop(): Promise<void> {
      stopped = true;
      const closed = new SpeechError('the flite pool is closed', 'tts_unavailable', false);
      while (queue.length > 0) settle(queue.shift()!, { error: closed });
      const all = slots.splice(0);
      for (const slot of all) {
        if (slot.timer) clearTimeout(slot.timer);
        if (slot.job) settle(slot.job, { error: closed });
        slot.settleReady(closed);
        slot.worker.removeAllListeners('exit');
      }
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}
