import { writeSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_RATE, type AudioFrame } from '../../media/index.ts';
import { FrameRing } from './frame-ring.ts';
import { createWorkerPacer } from './pacer.ts';
import {
  FRAME_SAMPLES,
  RTP_GRID_AT,
  RTP_SEQUENCE,
  RTP_TIMESTAMP,
  SOCKET_BROKEN,
  SOCKET_BUSY,
  SOCKET_CLOCK_RATE,
  SOCKET_CLOSED,
  SOCKET_DROPPED,
  SOCKET_RTP,
  SOCKET_SENT,
  SOCKET_STATE,
  WIRE_HEADER_ROOM,
  WIRE_SLOTS,
  socketBuffer,
  socketView,
  type SocketView,
} from './ring-layout.ts';
import {
  closeSocket,
  flushOwed,
  holdForMain,
  releaseFromMain,
  writeSlot,
  writerGone,
} from './wire-writer.ts';

// The pacer worker writing frames straight to a socket's descriptor: the state word that keeps it
// off a closed socket and out of the main thread's writes, a full buffer (EAGAIN) dropping the
// frame, a partial write breaking the leg. Over a real TCP pair on 127.0.0.1.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A connected TCP pair: `server` (whose descriptor is written to) and `client` (reading). */
async function tcpPair(): Promise<{ server: Socket; client: Socket; fd: number }> {
  const accepted: Socket[] = [];
  const listener: Server = createServer((s) => accepted.push(s));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const client = connect(address.port, '127.0.0.1');
  await new Promise<void>((resolve) => client.once('connect', resolve));
  while (accepted.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const server = accepted[0]!;
  cleanups.push(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  expect(fd).toBeGreaterThanOrEqual(0);
  return { server, client, fd };
}

/** A socket buffer for bare 8-byte messages whose bytes are the slot's number. */
function bareView(messageBytes = 8): SocketView {
  const view = socketView(socketBuffer(messageBytes));
  for (let slot = 0; slot < view.lengths.length; slot += 1) {
    view.lengths[slot] = messageBytes;
    const at = slot * view.slotBytes + WIRE_HEADER_ROOM;
    view.bytes.fill(slot, at, at + messageBytes);
  }
  return view;
}

const frame = (value: number): AudioFrame => ({
  samples: new Int16Array(FRAME_SAMPLES).fill(value),
  sampleRate: SESSION_RATE,
  at: 0,
});

describe('writing frames to a socket from the pacer', () => {
  it('writes one whole WebSocket frame per slot', async () => {
    const { client, fd } = await tcpPair();
    const got: Buffer[] = [];
    client.on('data', (d: Buffer) => got.push(d));
    const view = bareView();
    expect(writeSlot(view, fd, 3, true, 0)).toBe('sent');
    while (Buffer.concat(got).length < 10) await new Promise((resolve) => setTimeout(resolve, 1));
    expect([...Buffer.concat(got)]).toEqual([0x82, 8, 3, 3, 3, 3, 3, 3, 3, 3]);
    expect(view.control[SOCKET_SENT]).toBe(1);
  });

  it('never writes once the main thread closed it, and waits out the main thread’s own write', () => {
    const view = bareView();
    let writes = 0;
    const write = () => (writes += 1) && 10;
    expect(holdForMain(view.control)).toBe('held');
    expect(writeSlot(view, 99, 0, false, 0, write)).toBe('busy');
    expect(view.control[SOCKET_BUSY]).toBe(1);
    releaseFromMain(view.control);
    expect(writeSlot(view, 99, 0, false, 0, write)).toBe('sent');
    closeSocket(view.control);
    expect(view.control[SOCKET_STATE]).toBe(SOCKET_CLOSED);
    expect(holdForMain(view.control)).toBe('go');
    releaseFromMain(view.control);
    expect(writeSlot(view, 99, 1, false, 0, write)).toBe('closed');
    expect(writes).toBe(1);
  });

  it('drops a frame when the socket buffer is full (EAGAIN), counted', async () => {
    const { client, fd } = await tcpPair();
    client.pause();
    // Fill the socket's buffer to the last byte, as a client that stopped reading would.
    const filler = new Uint8Array(64 * 1024);
    for (let i = 0; i < 100_000; i += 1) {
      try {
        writeSync(fd, filler, 0, i < 1_000 ? filler.length : 1);
      } catch (err) {
        expect((err as NodeJS.ErrnoException).code).toBe('EAGAIN');
        break;
      }
    }
    const view = bareView(1200);
    expect(writeSlot(view, fd, 0, false, 0)).toBe('dropped');
    expect(writeSlot(view, fd, 1, false, 20)).toBe('dropped');
    expect(view.control[SOCKET_DROPPED]).toBe(2);
    expect(view.control[SOCKET_BROKEN]).toBe(0);
    expect(view.control[SOCKET_SENT]).toBe(0);
  });

  it('owes the rest of a frame a nearly full buffer took in part, and writes it as the client reads', async () => {
    const { client, fd } = await tcpPair();
    client.pause();
    const view = bareView(1200);
    let result = 'sent';
    let n = 0;
    for (; n < 100_000 && result === 'sent'; n += 1) result = writeSlot(view, fd, n % 50, false, n * 20);
    // Linux takes what fits: a partial write comes before EAGAIN.
    expect(['partly', 'dropped']).toContain(result);
    // Owed: the leg's next frames are dropped, the main thread's writes wait.
    if (result === 'partly') {
      expect(writeSlot(view, fd, n % 50, false, n * 20)).toBe('dropped');
      expect(holdForMain(view.control)).toBe('wait');
    }
    const sent = view.control[SOCKET_SENT]!;
    const chunks: Buffer[] = [];
    let length = 0;
    client.on('data', (d: Buffer) => {
      chunks.push(d);
      length += d.length;
    });
    client.resume();
    while (flushOwed(view, fd)) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(holdForMain(view.control)).toBe('held');
    releaseFromMain(view.control);
    const total = sent * 1204;
    while (length < total) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(length).toBe(total);
    const all = Buffer.concat(chunks);
    for (let i = 0; i < sent; i += 1) {
      expect(all[i * 1204]).toBe(0x82);
      expect(all.readUInt16BE(i * 1204 + 2)).toBe(1200);
      expect(all[i * 1204 + 4]).toBe(i % 50);
    }
  });

  it('owes the rest of a partial write before anything else; a failed write breaks the leg', () => {
    const view = bareView();
    const out: number[] = [];
    const writeAt = (limit: number) => (_fd: number, bytes: Uint8Array, offset: number, length: number) => {
      const n = Math.min(limit, length);
      out.push(...bytes.subarray(offset, offset + n));
      return n;
    };
    expect(writeSlot(view, 99, 0, false, 0, writeAt(4))).toBe('partly');
    expect(view.control[SOCKET_SENT]).toBe(1);
    expect(writeSlot(view, 99, 1, false, 20, writeAt(100))).toBe('dropped');
    expect(flushOwed(view, 99, writeAt(3))).toBe(true);
    expect(flushOwed(view, 99, writeAt(100))).toBe(false);
    expect(writeSlot(view, 99, 2, false, 40, writeAt(100))).toBe('sent');
    expect(out).toEqual([0x82, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x82, 8, 2, 2, 2, 2, 2, 2, 2, 2]);
    // The connection is gone (EPIPE): flagged, never written again.
    const fail = () => {
      throw Object.assign(new Error('EPIPE'), { code: 'EPIPE' });
    };
    expect(writeSlot(view, 99, 3, false, 60, fail)).toBe('broken');
    expect(view.control[SOCKET_BROKEN]).toBe(1);
    expect(writeSlot(view, 99, 4, false, 80, writeAt(100))).toBe('broken');
  });

  it('marks the first packet that leaves after a talkspurt start that could not leave', () => {
    // RTP framing, 8 kHz: the slots hold 12-byte headers the writer stamps as each packet leaves.
    const view = socketView(socketBuffer(12 + 160));
    view.control[SOCKET_RTP] = 1;
    view.control[SOCKET_CLOCK_RATE] = 8000;
    view.rtp[RTP_SEQUENCE] = 100;
    view.rtp[RTP_TIMESTAMP] = 5000;
    view.rtp[RTP_GRID_AT] = Number.NaN;
    for (let slot = 0; slot < view.lengths.length; slot += 1) {
      const at = slot * view.slotBytes + WIRE_HEADER_ROOM;
      view.bytes[at] = 0x80;
      view.lengths[slot] = 172;
    }
    const packets: Uint8Array[] = [];
    const write = (_fd: number, bytes: Uint8Array, offset: number, length: number) => {
      // Skip the WebSocket header: 4 bytes (0x82, 126, 16-bit length) for a 172-byte message.
      packets.push(bytes.slice(offset + 4, offset + length));
      return length;
    };
    const marker = (p: Uint8Array) => (p[1]! & 0x80) !== 0;
    const sequence = (p: Uint8Array) => (p[2]! << 8) | p[3]!;
    const timestamp = (p: Uint8Array) => new DataView(p.buffer, p.byteOffset).getUint32(4);
    // A talkspurt of two frames, then 7.5 s of silence.
    expect(writeSlot(view, 99, 0, true, 1_000, write)).toBe('sent');
    expect(writeSlot(view, 99, 1, false, 1_020, write)).toBe('sent');
    // The next talkspurt's first frame meets the main thread writing (a transcript line) and is
    // dropped; its second leaves with the beat's talkspurt flag off.
    expect(holdForMain(view.control)).toBe('held');
    expect(writeSlot(view, 99, 2, true, 8_520, write)).toBe('busy');
    releaseFromMain(view.control);
    expect(writeSlot(view, 99, 3, false, 8_540, write)).toBe('sent');
    expect(writeSlot(view, 99, 4, false, 8_560, write)).toBe('sent');
    expect(packets.map(sequence)).toEqual([100, 101, 102, 103]);
    expect(packets.map(timestamp)).toEqual([5000, 5160, 5160 + 7520 * 8, 5160 + 7540 * 8]);
    // Sequence +1, timestamp +60,160: the marker says a new talkspurt, not a 7.5 s delay.
    expect(packets.map(marker)).toEqual([true, false, true, false]);
  });

  it('never hangs the main thread on a writer stopped mid-write', () => {
    const view = bareView();
    Atomics.store(view.control, SOCKET_STATE, 1); // as a worker terminated between its claim and its release
    writerGone(view.control); // what the pacer does when the thread exits
    expect(view.control[SOCKET_STATE]).toBe(0);
    Atomics.store(view.control, SOCKET_STATE, 1);
    // The exit not seen yet: it waits a second at most, on its clock (here one that moves 100 ms
    // each time it is read).
    const reads: number[] = [];
    closeSocket(view.control, () => {
      reads.push(reads.length * 100);
      return reads.at(-1)!;
    });
    expect(view.control[SOCKET_STATE]).toBe(SOCKET_CLOSED);
    // It gave up on the first reading past the second, not before.
    expect(reads.at(-1)! - reads[0]!).toBe(1_100);
  });

  it('a real worker writes paced frames, and nothing once the socket is closed', async () => {
    const { client, fd } = await tcpPair();
    let received = Buffer.alloc(0);
    client.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
    });
    const view = socketView(socketBuffer(2));
    const ring = new FrameRing({
      encode(samples, slot) {
        const at = slot * view.slotBytes + WIRE_HEADER_ROOM;
        view.bytes[at] = samples[0]!;
        view.bytes[at + 1] = 0xee;
        view.lengths[slot] = 2;
      },
    });
    const pacer = createWorkerPacer();
    cleanups.push(() => pacer.close());
    pacer.add(ring, { fd, buffer: view.buffer });
    for (let i = 1; i <= 10; i += 1) ring.play(frame(i));
    const started = performance.now();
    // A worker thread may take seconds to start on a loaded machine.
    while (received.length < 40 && performance.now() - started < 15_000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect([...received]).toEqual([...Array(10).keys()].flatMap((i) => [0x82, 2, i + 1, 0xee]));
    // Paced: the ten frames left on ten consecutive beats of the pacer's 20 ms grid (its own
    // stamps, kept for the last WIRE_SLOTS beats; arrival times would depend on the machine).
    const { wireLengths, wireTimes } = ring.view;
    const grid = [...Array(WIRE_SLOTS).keys()]
      .filter((wire) => (wireLengths[wire] ?? 0) > 0)
      .map((wire) => wireTimes[wire * 2]!)
      .sort((a, b) => a - b);
    expect(grid.slice(1).map((at, i) => at - grid[i]!)).toEqual(Array(9).fill(20));
    // Closed: queued frames leave the ring but none reach the socket.
    closeSocket(view.control);
    for (let i = 11; i <= 15; i += 1) ring.play(frame(i));
    while (!ring.idle) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received.length).toBe(40);
    expect(view.control[SOCKET_SENT]).toBe(10);
  });
});
