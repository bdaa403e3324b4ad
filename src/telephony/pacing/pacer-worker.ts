import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { parentPort } from 'node:worker_threads';
import { raiseThreadPriority } from '../../core/index.ts';
import { PACER_NICE, type FromPacerWorker, type ToPacerWorker } from './pacer-protocol.ts';
import { ringView, socketView } from './ring-layout.ts';
import { SUB_BEATS, TICK_MS, tick, type PacedView } from './tick.ts';
import { flushOwed, writeSlot } from './wire-writer.ts';

// The pacer worker (pacer.ts): keeps a 5 ms tick on its own grid and sends the legs due at each
// (tick.ts). It does nothing else and waits for each tick in Atomics.wait (a futex with a precise
// timeout; a timer is only good to a millisecond or two). Ticks missed anyway are caught up at
// once, late rather than never. Between ticks it handles the main thread's messages. A leg added
// with a socket (WebSocket media) has its encoded frames written to that socket from here.

const now = () => performance.timeOrigin + performance.now();
const rings = new Map<number, PacedView>();
const parked = new Int32Array(new SharedArrayBuffer(4));
let running = false;

/** This thread runs first when it wakes (core/worker.ts). */
const raisePriority = (): FromPacerWorker => ({ kind: 'priority', ...raiseThreadPriority(PACER_NICE) });

async function beat(): Promise<void> {
  running = true;
  let next = now() + TICK_MS;
  let phase = 0;
  while (rings.size > 0) {
    const rest = next - now();
    if (rest > 0) Atomics.wait(parked, 0, 0, rest);
    tick(rings.values(), phase, next, now);
    next += TICK_MS;
    phase = (phase + 1) % SUB_BEATS;
    await yieldToEvents();
  }
  running = false;
}

parentPort?.postMessage(raisePriority());
parentPort?.on('message', (message: ToPacerWorker) => {
  if (message.kind === 'add') {
    const view = ringView(message.buffer);
    const { socket } = message;
    if (socket) {
      // This leg's frames go to its socket from here, as they leave (wire-writer.ts).
      const bytes = socketView(socket.buffer);
      const { fd } = socket;
      rings.set(message.id, {
        ...view,
        onSent: (slot, talkspurtStart, gridAt) => void writeSlot(bytes, fd, slot, talkspurtStart, gridAt),
        everyTick: () => void flushOwed(bytes, fd),
      });
    } else rings.set(message.id, view);
  } else rings.delete(message.id);
  if (!running && rings.size > 0) void beat();
});
