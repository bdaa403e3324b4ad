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
/**
 * Called by `sendBeat` with the `out` slot leaving, while the slot is still held (the queuing side
 * does not overwrite it until this returns): the socket writer (wire-writer.ts) writes its bytes.
 * `talkspurtStart`: the beat before sent nothing.
 */
export type SlotSent = (slot: number, talkspurtStart: boolean, gridAt: number) => void;

export function sendBeat(view: RingView, gridAt: number, sentAt: number, sent?: SlotSent): void {
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
    if (sent) sent(slot, control[SENT_LAST] === 0, gridAt);
  } else {
    wireLengths[wire] = 0;
  }
  control[SENT_LAST] = slot >= 0 ? 1 : 0;
  Atomics.store(control, IN_FLIGHT, 0);
  wireTimes[wire * 2] = gridAt;
  wireTimes[wire * 2 + 1] = sentAt;
  Atomics.store(control, WIRE_COUNT, beat + 1);
}

// The bytes of a leg whose frames the sender writes to the socket itself (a WebSocket media call:
// docs/ws-media.md). Parallel to `out`: per slot, the frame already encoded by the queuing side
// (the codecs live on its thread) as it will travel, after WIRE_HEADER_ROOM bytes where the sender
// puts the WebSocket frame header; with RTP framing the packet's sequence number, timestamp and
// marker are placeholders the sender fills in as the packet leaves. Control words:

/**
 * 0 open, 1 the sender is writing to the socket, 2 closed (never write again), 3 the main thread is
 * writing, 4 the sender owes the rest of a frame the socket took only in part (nobody else may
 * write before it is out).
 */
export const SOCKET_STATE = 0;
export const SOCKET_OPEN = 0;
export const SOCKET_WRITING = 1;
export const SOCKET_CLOSED = 2;
export const SOCKET_MAIN_WRITING = 3;
export const SOCKET_OWED = 4;
/** 1 once a write failed (the connection is gone): the main thread cuts the socket. */
export const SOCKET_BROKEN = 1;
/** Frames dropped because the socket's buffer was full (EAGAIN). */
export const SOCKET_DROPPED = 2;
/** Frames dropped because the main thread held the socket for longer than the sender waits. */
export const SOCKET_BUSY = 3;
/** Frames written. */
export const SOCKET_SENT = 4;
/** 1: the slots hold RTP packets (12-byte header first). */
export const SOCKET_RTP = 5;
/** The RTP clock rate. */
export const SOCKET_CLOCK_RATE = 6;
/** Bytes of a frame still owed (SOCKET_OWED), kept in the slot after the last `out` slot. */
export const SOCKET_PENDING = 7;
const SOCKET_WORDS = 8;
/** Float64 words (the sender's RTP state): next sequence number, last timestamp, its grid time (NaN: none). */
export const RTP_SEQUENCE = 0;
export const RTP_TIMESTAMP = 1;
export const RTP_GRID_AT = 2;
const RTP_WORDS = 3;
/** Room before each slot's bytes for the WebSocket header (2 or 4 bytes for a server frame). */
export const WIRE_HEADER_ROOM = 4;

export interface SocketView {
  readonly buffer: SharedArrayBuffer;
  readonly control: Int32Array;
  readonly rtp: Float64Array;
  /** Per `out` slot: the encoded message's length (without the header room). */
  readonly lengths: Int32Array;
  readonly bytes: Uint8Array;
  /** Bytes per slot, header room included. */
  readonly slotBytes: number;
}

const SOCKET_HEAD_BYTES = SOCKET_WORDS * 4 + RTP_WORDS * 8 + OUT_SLOTS * 4;

/** Shared memory for a socket leg whose largest message (RTP header and payload) is `maxMessage` bytes. */
export function socketBuffer(maxMessage: number): SharedArrayBuffer {
  const slotBytes = WIRE_HEADER_ROOM + Math.ceil(maxMessage / 4) * 4;
  // One slot more: the rest of a frame the socket took only in part, until it is out.
  return new SharedArrayBuffer(SOCKET_HEAD_BYTES + (OUT_SLOTS + 1) * slotBytes);
}

export function socketView(buffer: SharedArrayBuffer): SocketView {
  const slotBytes = (buffer.byteLength - SOCKET_HEAD_BYTES) / (OUT_SLOTS + 1);
  if (!Number.isInteger(slotBytes) || slotBytes <= WIRE_HEADER_ROOM)
    throw new RangeError('not a socket buffer');
  return {
    buffer,
    control: new Int32Array(buffer, 0, SOCKET_WORDS),
    rtp: new Float64Array(buffer, SOCKET_WORDS * 4, RTP_WORDS),
    lengths: new Int32Array(buffer, SOCKET_WORDS * 4 + RTP_WORDS * 8, OUT_SLOTS),
    bytes: new Uint8Array(buffer, SOCKET_HEAD_BYTES, (OUT_SLOTS + 1) * slotBytes),
    slotBytes,
  };
}
