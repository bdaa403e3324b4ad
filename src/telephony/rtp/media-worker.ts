import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort } from 'node:worker_threads';
import { raiseThreadPriority } from '../../core/index.ts';
import { FRAME_MS } from '../../media/index.ts';
import { MediaHost, PortsExhaustedError } from './host.ts';
import { MEDIA_NICE, type FromMediaWorker, type ToMediaWorker } from './protocol.ts';

// The RTP media worker (docs/sip.md, "Media (RTP)"): owns the calls' UDP sockets, jitter buffers
// and codecs. Its 20 ms beat is cut into SUB_BEATS ticks, each session beating on one of them, so
// the sends of many calls spread over the beat. It waits for a tick on a timer until the last
// millisecond and in Atomics.wait (precise) for the rest: its event loop stays free to read the
// sockets (arrival times feed the jitter statistics) most of the time.

const SUB_BEATS = 4;
const TICK_MS = FRAME_MS / SUB_BEATS;
/** The part of a wait left to Atomics.wait (a timer is only good to a millisecond or so). */
const PRECISE_MS = 1.5;
/** Behind by more than this (the thread was stopped), the grid restarts rather than catching up. */
const MAX_BEHIND_MS = 1_000;

const now = () => performance.timeOrigin + performance.now();
const parked = new Int32Array(new SharedArrayBuffer(4));
let host: MediaHost | null = null;
let running = false;

async function run(): Promise<void> {
  running = true;
  let next = now() + TICK_MS;
  let phase = 0;
  while (host && host.sessions.size > 0) {
    const rest = next - now();
    if (rest > PRECISE_MS) await sleep(rest - PRECISE_MS);
    const left = next - now();
    if (left > 0) Atomics.wait(parked, 0, 0, left);
    host.beat(next, phase, SUB_BEATS);
    next += TICK_MS;
    phase = (phase + 1) % SUB_BEATS;
    if (now() - next > MAX_BEHIND_MS) next = now() + TICK_MS;
    // Missed ticks are caught up at once; the sockets get their turn between ticks either way.
    if (next <= now()) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  running = false;
}

function reply(message: FromMediaWorker): void {
  parentPort?.postMessage(message);
}

/** This thread runs first when it wakes (core/worker.ts). */
const raisePriority = (): FromMediaWorker => ({ kind: 'priority', ...raiseThreadPriority(MEDIA_NICE) });

reply(raisePriority());

parentPort?.on('message', (message: ToMediaWorker) => {
  if (message.kind === 'init') {
    host = new MediaHost(message.settings, now, message.timing);
    return;
  }
  if (!host) return;
  switch (message.kind) {
    case 'open': {
      const { id } = message;
      host.open(id, message.endpoint, message.ring, message.port).then(
        (port) => {
          reply({ kind: 'opened', id, port });
          if (!running) void run();
        },
        (err: unknown) =>
          reply({
            kind: 'open-failed',
            id,
            message: err instanceof Error ? err.message : String(err),
            exhausted: err instanceof PortsExhaustedError,
          }),
      );
      return;
    }
    case 'update':
      host.update(message.id, message.remote);
      return;
    case 'keys':
      host.keys(message.id, message.requestId, message.digits);
      return;
    case 'close':
      host.close(message.id);
      return;
  }
});
