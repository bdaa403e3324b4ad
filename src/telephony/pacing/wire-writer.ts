import { writeSync } from 'node:fs';
import { FRAME_MS } from '../../media/index.ts';
import {
  RTP_GRID_AT,
  RTP_SEQUENCE,
  RTP_TIMESTAMP,
  SOCKET_BROKEN,
  SOCKET_BUSY,
  SOCKET_CLOCK_RATE,
  SOCKET_CLOSED,
  SOCKET_DROPPED,
  SOCKET_MAIN_WRITING,
  SOCKET_OPEN,
  SOCKET_OWED,
  SOCKET_PENDING,
  SOCKET_RTP,
  SOCKET_SENT,
  SOCKET_STATE,
  SOCKET_WRITING,
  WIRE_HEADER_ROOM,
  type SocketView,
} from './ring-layout.ts';

// Writing a leg's encoded frames straight to its socket's file descriptor (docs/ws-media.md), from
// the pacer worker, while the main thread's WebSocket library writes its own messages on the same
// socket through libuv. A TCP write(2) of a small buffer goes out whole under the socket's lock, so
// each side writing whole WebSocket frames in one write interleaves frames and never mixes them.
// The state word (ring-layout.ts SOCKET_STATE) keeps the rest safe:
// - the sender writes only from `open`, holding `writing` for that one write(2);
// - the main thread turns it `closed` (spinning over a write in progress) before the socket's
//   descriptor can close, so the sender never writes to a descriptor number reused meanwhile;
// - the main thread holds it `main writing` while libuv writes for it (a write libuv could only
//   do partly keeps it until the rest is out), so a frame never lands inside one of its messages;
// - a frame the socket took only in part (its buffer nearly full) leaves the sender owing the rest
//   (`owed`): it writes the rest on the next ticks, as the client reads, and meanwhile drops the
//   leg's new frames and the main thread's writes wait (`holdForMain` says 'wait').

/** How long the sender waits for the main thread's write before dropping the frame. */
const MAIN_WAIT_MS = 0.5;
/** How long the main thread waits for a write in progress before taking the writer for stopped. */
const WRITER_GONE_MS = 1_000;
const TWO_32 = 2 ** 32;
const parked = new Int32Array(new SharedArrayBuffer(4));

/**
 * A packet that follows the last one sent by more than a beat and a half on the grid starts a new
 * talkspurt as the receiver sees it (its timestamp jumps while its sequence number moves by one).
 */
const TALKSPURT_GAP_MS = FRAME_MS * 1.5;

/**
 * The slot's message with its RTP header filled in for sending now; returns where it starts. The
 * marker goes on the first packet of each talkspurt as the far end sees it: `talkspurtStart` (the
 * beat before sent nothing) or any packet that does not follow the last one sent on the beat right
 * before it. The beat's own flag alone would miss a talkspurt whose first frame never left (the
 * main thread held the socket, a full buffer, a frame that could not be encoded): the next frame
 * leaves with the timestamp moved on by the whole silence and, without the marker, a strict
 * receiver takes the jump for a delay.
 */
export function stampMessage(
  view: SocketView,
  slot: number,
  talkspurtStart: boolean,
  gridAt: number,
): number {
  const { control, rtp, bytes, slotBytes } = view;
  const start = slot * slotBytes + WIRE_HEADER_ROOM;
  if (control[SOCKET_RTP] !== 1) return start;
  const sequence = rtp[RTP_SEQUENCE] ?? 0;
  const last = rtp[RTP_TIMESTAMP] ?? 0;
  const lastAt = rtp[RTP_GRID_AT] ?? Number.NaN;
  // The timestamp follows the beat's grid, so a silence (or a dropped frame) moves it on as far.
  const timestamp = Number.isNaN(lastAt)
    ? last
    : (last + Math.round(((gridAt - lastAt) * (control[SOCKET_CLOCK_RATE] ?? 0)) / 1000)) % TWO_32;
  const marker = talkspurtStart || Number.isNaN(lastAt) || gridAt - lastAt > TALKSPURT_GAP_MS;
  bytes[start + 1] = ((bytes[start + 1] ?? 0) & 0x7f) | (marker ? 0x80 : 0);
  bytes[start + 2] = sequence >>> 8;
  bytes[start + 3] = sequence & 0xff;
  bytes[start + 4] = timestamp >>> 24;
  bytes[start + 5] = (timestamp >>> 16) & 0xff;
  bytes[start + 6] = (timestamp >>> 8) & 0xff;
  bytes[start + 7] = timestamp & 0xff;
  return start;
}

/** The stamped message left: the next one gets the next sequence number. */
export function messageSent(view: SocketView, slot: number, gridAt: number): void {
  const { control, rtp, bytes, slotBytes } = view;
  Atomics.add(control, SOCKET_SENT, 1);
  if (control[SOCKET_RTP] !== 1) return;
  const at = slot * slotBytes + WIRE_HEADER_ROOM;
  rtp[RTP_SEQUENCE] = ((rtp[RTP_SEQUENCE] ?? 0) + 1) & 0xffff;
  rtp[RTP_TIMESTAMP] =
    (((bytes[at + 4] ?? 0) << 24) |
      ((bytes[at + 5] ?? 0) << 16) |
      ((bytes[at + 6] ?? 0) << 8) |
      (bytes[at + 7] ?? 0)) >>>
    0;
  rtp[RTP_GRID_AT] = gridAt;
}

/** Puts the server's WebSocket header (FIN, binary, unmasked) before the message; returns where it starts. */
export function frameHeader(bytes: Uint8Array, start: number, length: number): number {
  if (length < 126) {
    bytes[start - 2] = 0x82;
    bytes[start - 1] = length;
    return start - 2;
  }
  bytes[start - 4] = 0x82;
  bytes[start - 3] = 126;
  bytes[start - 2] = length >>> 8;
  bytes[start - 1] = length & 0xff;
  return start - 4;
}

export type WriteResult = 'sent' | 'partly' | 'dropped' | 'busy' | 'closed' | 'broken';

type Write = (fd: number, bytes: Uint8Array, offset: number, length: number) => number;

/** Writes bytes `from` to `to` of `bytes`; what went out, or 'again' (buffer full), or 'failed'. */
function tryWrite(
  write: Write,
  fd: number,
  bytes: Uint8Array,
  from: number,
  to: number,
): number | 'again' | 'failed' {
  try {
    return write(fd, bytes, from, to - from);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'EAGAIN' || code === 'EWOULDBLOCK' ? 'again' : 'failed';
  }
}

/** Keeps the unwritten rest of a frame in the pending slot: the stream is owed it before anything else. */
function owe(view: SocketView, from: number, to: number): void {
  const { bytes, control, slotBytes } = view;
  const pending = bytes.length - slotBytes;
  bytes.copyWithin(pending, from, to);
  control[SOCKET_PENDING] = to - from;
  Atomics.store(control, SOCKET_STATE, SOCKET_OWED);
}

/**
 * The sender's step on every tick, before it sends: writes what it owes of a frame the socket took
 * only in part. Returns true while something is still owed.
 */
export function flushOwed(view: SocketView, fd: number, write: Write = writeSync): boolean {
  const { control, bytes, slotBytes } = view;
  if (Atomics.load(control, SOCKET_STATE) !== SOCKET_OWED) return false;
  if (Atomics.compareExchange(control, SOCKET_STATE, SOCKET_OWED, SOCKET_WRITING) !== SOCKET_OWED)
    return false;
  const pending = bytes.length - slotBytes;
  const length = control[SOCKET_PENDING] ?? 0;
  const written = tryWrite(write, fd, bytes, pending, pending + length);
  if (written === 'failed') {
    Atomics.store(control, SOCKET_BROKEN, 1);
    Atomics.store(control, SOCKET_STATE, SOCKET_OPEN);
    return false;
  }
  if (written === 'again' || written < length) {
    const done = written === 'again' ? 0 : written;
    owe(view, pending + done, pending + length);
    return true;
  }
  control[SOCKET_PENDING] = 0;
  Atomics.store(control, SOCKET_STATE, SOCKET_OPEN);
  return false;
}

/**
 * The sender's write of the slot leaving: one WebSocket frame in one write(2), or nothing. Never
 * throws; a socket whose write failed (other than a full buffer) or went out partly is flagged
 * broken and not written again.
 */
export function writeSlot(
  view: SocketView,
  fd: number,
  slot: number,
  talkspurtStart: boolean,
  gridAt: number,
  write: Write = writeSync,
): WriteResult {
  const { control, bytes } = view;
  if (Atomics.load(control, SOCKET_BROKEN) !== 0) return 'broken';
  if ((view.lengths[slot] ?? 0) === 0) return 'dropped'; // the frame could not be encoded
  let state = Atomics.compareExchange(control, SOCKET_STATE, SOCKET_OPEN, SOCKET_WRITING);
  if (state === SOCKET_MAIN_WRITING) {
    const until = performance.now() + MAIN_WAIT_MS;
    while (state === SOCKET_MAIN_WRITING && performance.now() < until) {
      Atomics.wait(parked, 0, 0, 0.02);
      state = Atomics.compareExchange(control, SOCKET_STATE, SOCKET_OPEN, SOCKET_WRITING);
    }
  }
  if (state === SOCKET_CLOSED) return 'closed';
  if (state === SOCKET_OWED) {
    Atomics.add(control, SOCKET_DROPPED, 1); // the buffer is still full of the last one
    return 'dropped';
  }
  if (state !== SOCKET_OPEN) {
    Atomics.add(control, SOCKET_BUSY, 1);
    return 'busy';
  }
  const start = stampMessage(view, slot, talkspurtStart, gridAt);
  const length = view.lengths[slot] ?? 0;
  const from = frameHeader(bytes, start, length);
  const to = start + length;
  const written = tryWrite(write, fd, bytes, from, to);
  if (written === 'again') {
    Atomics.add(control, SOCKET_DROPPED, 1);
    Atomics.store(control, SOCKET_STATE, SOCKET_OPEN);
    return 'dropped';
  }
  if (written === 'failed') {
    Atomics.store(control, SOCKET_BROKEN, 1);
    Atomics.store(control, SOCKET_STATE, SOCKET_OPEN);
    return 'broken';
  }
  messageSent(view, slot, gridAt);
  if (written < to - from) {
    owe(view, from + written, to);
    return 'partly';
  }
  Atomics.store(control, SOCKET_STATE, SOCKET_OPEN);
  return 'sent';
}

/**
 * Main thread: the socket is about to close (or the leg ended): from now on the sender never
 * writes to it (the rest of a frame it owed is given up: the connection is going). Waits out a
 * write in progress (one write(2), microseconds). `now` is the clock of that wait (ms).
 */
export function closeSocket(control: Int32Array, now: () => number = () => performance.now()): void {
  let giveUpAt = 0;
  for (;;) {
    const state = Atomics.compareExchange(control, SOCKET_STATE, SOCKET_OPEN, SOCKET_CLOSED);
    if (state === SOCKET_OPEN || state === SOCKET_CLOSED) return;
    if (state !== SOCKET_WRITING) {
      if (Atomics.compareExchange(control, SOCKET_STATE, state, SOCKET_CLOSED) === state) return;
      continue;
    }
    // `writing` lasts one write(2). Held far longer, the writer was stopped mid-write (its thread
    // terminated): no write follows, the pacer resets it on the thread's exit, and this waits at
    // most WRITER_GONE_MS for that rather than hang the main thread.
    const at = now();
    if (giveUpAt === 0) giveUpAt = at + WRITER_GONE_MS;
    else if (at > giveUpAt) {
      Atomics.store(control, SOCKET_STATE, SOCKET_CLOSED);
      return;
    } else if (at > giveUpAt - WRITER_GONE_MS + 1) Atomics.wait(parked, 0, 0, 0.05);
  }
}

/** The writing thread is gone (exited): a write it was doing when it stopped is over. */
export function writerGone(control: Int32Array): void {
  Atomics.compareExchange(control, SOCKET_STATE, SOCKET_WRITING, SOCKET_OPEN);
}

/**
 * Main thread, before a write of its own: 'held' (the sender keeps off until `releaseFromMain`),
 * 'go' (closed or held already: write), or 'wait' (the sender owes the rest of a frame: try again
 * shortly, writing now would land inside it).
 */
export function holdForMain(control: Int32Array): 'held' | 'go' | 'wait' {
  for (;;) {
    const state = Atomics.compareExchange(control, SOCKET_STATE, SOCKET_OPEN, SOCKET_MAIN_WRITING);
    if (state === SOCKET_OPEN) return 'held';
    if (state === SOCKET_CLOSED || state === SOCKET_MAIN_WRITING) return 'go';
    if (state === SOCKET_OWED) return 'wait';
  }
}

/** Main thread: its write is out. */
export function releaseFromMain(control: Int32Array): void {
  Atomics.compareExchange(control, SOCKET_STATE, SOCKET_MAIN_WRITING, SOCKET_OPEN);
}
