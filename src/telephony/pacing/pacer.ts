import type { Worker } from 'node:worker_threads';
import { spawnSiblingWorker, type Logger } from '../../core/index.ts';
import type { FrameRing } from './frame-ring.ts';
import type { FromPacerWorker, PacedSocket, ToPacerWorker } from './pacer-protocol.ts';
import { PACED, socketView } from './ring-layout.ts';
import { writerGone } from './wire-writer.ts';

// Who sends each leg's frames on the 20 ms beat (DESIGN.md section 5, docs/voice.md). A carrier
// queues a leg's audio in a FrameRing and hands the ring to its pacer:
// - `worker`: a worker thread keeps the beat and sends, so what the main thread does (sessions,
//   the API, the store, garbage collection) never delays a frame; its clock is the system's;
// - `caller`: the carrier's own beat sends (`sendBeat` on the ring), on its injected clock: the
//   deterministic choice for tests on a manual clock, and the fallback where workers cannot run.

export interface FramePacer {
  /** Read on every beat: a worker pacer that had to give up on its worker turns `caller`. */
  readonly mode: 'worker' | 'caller';
  /**
   * Starts sending the ring's frames on the beat. With `socket` (a `worker` pacer only), the worker
   * also writes each frame's encoded bytes to that socket as it leaves (wire-writer.ts).
   */
  add(ring: FrameRing, socket?: PacedSocket): void;
  /** Stops sending them (the leg ended). */
  delete(ring: FrameRing): void;
  /** Stops the beat for good. */
  close(): Promise<void>;
}

/** The carrier's beat sends: add and delete only keep count. */
export function createCallerPacer(): FramePacer {
  return {
    mode: 'caller',
    add() {},
    delete() {},
    async close() {},
  };
}

export interface WorkerPacerOptions {
  logger?: Logger;
  /** Starts the worker (tests inject one that fails). */
  spawn?: () => Worker;
}

/** Worker restarts tried before giving up on a pacer whose worker keeps dying. */
const MAX_RESTARTS = 5;

/**
 * One worker thread that sends every ring's frames. The rings live in shared memory, so a worker
 * that dies is replaced and picks up where the old one stopped, with no frame lost but those of
 * the beats in between. One that keeps dying is given up: the pacer turns `caller` and the
 * carriers' beats send from the main thread, later but never silent.
 */
export function createWorkerPacer(options: WorkerPacerOptions = {}): FramePacer {
  const spawn = options.spawn ?? (() => spawnSiblingWorker(import.meta.url, 'pacer-worker'));
  const ids = new Map<FrameRing, number>();
  const sockets = new Map<FrameRing, PacedSocket>();
  let nextId = 1;
  let restarts = 0;
  let closed = false;
  let toldPriority = false;
  let gaveUp = false;
  let worker = start();

  function post(message: ToPacerWorker) {
    worker.postMessage(message);
  }

  function start(): Worker {
    const w = spawn();
    w.unref();
    w.on('error', (err) => options.logger?.error({ err }, 'frame pacer worker failed'));
    w.on('message', (message: FromPacerWorker) => {
      if (message.kind !== 'priority' || toldPriority) return;
      toldPriority = true;
      if (message.raised) options.logger?.debug('frame pacer thread runs at a raised priority');
      else
        options.logger?.warn(
          { reason: message.reason },
          'frame pacer thread could not raise its priority: on a busy machine frames may leave late',
        );
    });
    w.on('exit', (code) => {
      // A write the thread was doing when it stopped is over: the sockets are free again.
      for (const socket of sockets.values()) writerGone(socketView(socket.buffer).control);
      if (closed || w !== worker) return;
      if (restarts >= MAX_RESTARTS) {
        gaveUp = true;
        options.logger?.error(
          { code, restarts },
          'frame pacer worker keeps exiting: frames now leave from the main thread',
        );
        return;
      }
      restarts += 1;
      options.logger?.warn({ code }, 'frame pacer worker exited: restarting it');
      worker = start();
      for (const [ring, id] of ids) {
        const socket = sockets.get(ring);
        post({ kind: 'add', id, buffer: ring.buffer, ...(socket ? { socket } : {}) });
      }
    });
    return w;
  }

  return {
    get mode() {
      return gaveUp ? 'caller' : 'worker';
    },
    add(ring, socket) {
      if (closed || ids.has(ring)) return;
      const id = nextId++;
      ids.set(ring, id);
      if (socket) sockets.set(ring, socket);
      Atomics.store(ring.view.control, PACED, 1);
      post({ kind: 'add', id, buffer: ring.buffer, ...(socket ? { socket } : {}) });
    },
    delete(ring) {
      const id = ids.get(ring);
      if (id === undefined) return;
      ids.delete(ring);
      sockets.delete(ring);
      Atomics.store(ring.view.control, PACED, 0);
      if (!closed) post({ kind: 'delete', id });
    },
    async close() {
      if (closed) return;
      closed = true;
      ids.clear();
      await worker.terminate();
      for (const socket of sockets.values()) writerGone(socketView(socket.buffer).control);
      sockets.clear();
    },
  };
}
