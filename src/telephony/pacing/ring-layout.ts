import { SESSION_RATE, samplesPerFrame } from '../../media/index.ts';

// The memory one leg's outgoing audio shares between the thread that queues it (the call's, on
// the main thread) and the thread that sends it on the 20 ms beat (a pacer worker, or the same
// thread when the carrier's own beat sends). Two rings of 20 ms slots in one SharedArrayBuffer:
// `out` holds frames queued to leave, written by the queuing side only; `wire` holds, per beat,
// the frame that left (or none) with its times, written by the sending side only. Indices only
// grow; a slot is index % ring size. Every cross-thread read and write of an index is atomic.

export const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);
/** Frames that may wait in `out`: one second ahead of the beat, so a stalled queuing thread does
 * not starve the sender. */
export const OUT_SLOTS = 50;
/** Beats kept in `wire` until the queuing side reads them (a second's worth). */
export const WIRE_SLOTS = 50;

/** Indices of the control words. */
export const WRITE = 0; // next `out` index the queuing side writes
export const READ = 1; // next `out` index to leave; the sender claims by compare-and-swap, clear() jumps it
export const IN_FLIGHT = 2; // 1 + the `out` index being copied by the sender, 0 when none
export const WIRE_COUNT = 3; // beats written to `wire`
export const PHASE = 4; // the sub-beat of the 20 ms beat this leg sends on (sender only)
export const SENT_LAST = 5; // 1 when the leg's last beat sent a frame, 0 for silence (sender only)
export const PACED = 6; // 1 while a pacer worker sends this ring (its delete takes effect at once)
const CONTROL_WORDS = 7;

export interface RingView {
  readonly control: Int32Array;
  /** `out` slots, then `wire` slots, FRAME_SAMPLES each: one array so a send copies in place. */
  readonly samples: Int16Array;
  readonly outLengths: Int16Array;
  readonly wireLengths: Int16Array;
  /** Per `wire` slot: the beat's time on the grid, then when the frame left. */
  readonly wireTimes: Float64Array;
}

const CONTROL_BYTES = CONTROL_WORDS * 4;
const TIMES_BYTES = WIRE_SLOTS * 2 * 8;
const LENGTHS_BYTES = (OUT_SLOTS + WIRE_SLOTS) * 2;
const SAMPLES_BYTES = (OUT_SLOTS + WIRE_SLOTS) * FRAME_SAMPLES * 2;
const TIMES_AT = 32; // after the control words, 8-byte aligned
const LENGTHS_AT = TIMES_AT + TIMES_BYTES;
const SAMPLES_AT = LENGTHS_AT + LENGTHS_BYTES;
export const RING_BYTES = SAMPLES_AT + SAMPLES_BYTES;
if (CONTROL_BYTES > TIMES_AT) throw new Error('ring layout: control words overlap');

export function ringView(buffer: SharedArrayBuffer): RingView {
  if (buffer.byteLength !== RING_BYTES) throw new RangeError(`a frame ring is ${RING_BYTES} bytes`);
  return {
    control: new Int32Array(buffer, 0, CONTROL_WORDS),
    wireTimes: new Float64Array(buffer, TIMES_AT, WIRE_SLOTS * 2),
    outLengths: new Int16Array(buffer, LENGTHS_AT, OUT_SLOTS),
    wireLengths: new Int16Array(buffer, LENGTHS_AT + OUT_SLOTS * 2, WIRE_SLOTS),
    samples: new Int16Array(buffer, SAMPLES_AT, (OUT_SLOTS + WIRE_SLOTS) * FRAME_SAMPLES),
  };
}

/** Frames are queued on a leg that sent silence on its last beat: a talkspurt may start now. */
export function talkspurtWaiting(view: RingView): boolean {
  const { control } = view;
  return control[SENT_LAST] === 0 && Atomics.load(control, READ) < Atomics.load(control, WRITE);
}

/**
 * The sender's step for one beat: claims the next queued frame (unless clear() took it first) and
 * writes it, or nothing, to `wire` with the beat's grid time and the send time. No allocation.
 */
export function sendBeat(view: RingView, gridAt: number, sentAt: number): void {
  const { control, samples, outLengths, wireLengths, wireTimes } = view;
  let slot = -1;
  for (;;) {
    const read = Atomics.load(control, READ);
    if (read >= Atomics.load(control, WRITE)) break;
    // Announced before the claim: the queuing side never overwrites a slot still being copied.
    Atomics.store(control, IN_FLIGHT, read + 1);
    if (Atomics.compareExchange(control, READ, read, read + 1) === read) {
      slot = read % OUT_SLOTS;
      break;
    }
  }
  const beat = Atomics.load(control, WIRE_COUNT);
  const wire = beat % WIRE_SLOTS;
  if (slot >= 0) {
    const length = outLengths[slot] ?? 0;
    const from = slot * FRAME_SAMPLES;
    samples.copyWithin((OUT_SLOTS + wire) * FRAME_SAMPLES, from, from + length);
    wireLengths[wire] = length;
  } else {
    wireLengths[wire] = 0;
  }
  control[SENT_LAST] = slot >= 0 ? 1 : 0;
  Atomics.store(control, IN_FLIGHT, 0);
  wireTimes[wire * 2] = gridAt;
  wireTimes[wire * 2 + 1] = sentAt;
  Atomics.store(control, WIRE_COUNT, beat + 1);
}
