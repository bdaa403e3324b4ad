import { describe, expect, it } from 'vitest';
import { JitterBuffer, type JitterFrame, type JitterPacket } from './jitter-buffer.ts';

const packet = (sequence: number, ssrc = 1): JitterPacket => ({
  sequence,
  timestamp: (sequence * 160) >>> 0,
  ssrc,
  marker: false,
  payload: Uint8Array.of(sequence & 0xff, sequence >> 8),
});

/** What a pop gave, in short: the sequence number played, `-n` for n missing, `w` for waiting. */
const show = (frame: JitterFrame): number | string =>
  frame.kind === 'frame' ? frame.sequence : frame.kind === 'missing' ? `-${frame.sequence}` : 'w';

const pops = (buffer: JitterBuffer, n: number) => Array.from({ length: n }, () => show(buffer.pop()));

function insertAll(buffer: JitterBuffer, sequences: number[], ssrc = 1): void {
  for (const sequence of sequences) buffer.insert(packet(sequence, ssrc));
}

describe('JitterBuffer', () => {
  it('waits for the target depth, then plays one frame per tick with its payload', () => {
    const buffer = new JitterBuffer();
    expect(show(buffer.pop())).toBe('w');
    buffer.insert(packet(100));
    expect(show(buffer.pop())).toBe('w');
    buffer.insert(packet(101));
    expect(show(buffer.pop())).toBe('w');
    buffer.insert(packet(102));
    const first = buffer.pop();
    expect(first).toEqual({
      kind: 'frame',
      sequence: 100,
      timestamp: 16000,
      marker: false,
      payload: Uint8Array.of(100, 0),
    });
    for (let s = 103; s < 110; s += 1) {
      buffer.insert(packet(s));
      expect(show(buffer.pop())).toBe(s - 2);
    }
    expect(buffer.depth).toBe(2);
    expect(buffer.stats).toEqual({
      received: 10,
      lost: 0,
      late: 0,
      duplicate: 0,
      reordered: 0,
      dropped: 0,
      resyncs: 0,
    });
  });

  it('puts reordered packets back in order, including one that overtook the first', () => {
    const buffer = new JitterBuffer();
    insertAll(buffer, [101, 102, 100, 104, 103, 105, 107, 106]);
    expect(pops(buffer, 8)).toEqual([100, 101, 102, 103, 104, 105, 106, 107]);
    expect(buffer.stats.reordered).toBe(3);
    expect(buffer.stats.lost).toBe(0);
  });

  it('reports a gap as missing, counts it lost, and drops the packet if it comes after its slot', () => {
    const buffer = new JitterBuffer();
    insertAll(buffer, [1, 2, 4, 5, 7]);
    expect(pops(buffer, 3)).toEqual([1, 2, '-3']);
    expect(buffer.insert(packet(3))).toBe('late');
    expect(pops(buffer, 1)).toEqual([4]);
    expect(buffer.insert(packet(6))).toBe('buffered'); // in time: its slot is next
    expect(pops(buffer, 3)).toEqual([5, 6, 7]);
    expect(buffer.insert(packet(2))).toBe('late');
    expect(buffer.stats).toMatchObject({ received: 8, lost: 1, late: 2, reordered: 1 });
  });

  it('drops duplicates, whether still held or already played', () => {
    const buffer = new JitterBuffer();
    insertAll(buffer, [10, 11, 12]);
    expect(buffer.insert(packet(11))).toBe('duplicate');
    expect(pops(buffer, 1)).toEqual([10]);
    expect(buffer.insert(packet(10))).toBe('late');
    expect(pops(buffer, 2)).toEqual([11, 12]);
    expect(buffer.stats).toMatchObject({ duplicate: 1, late: 1, received: 5 });
  });

  it('plays straight across the 16-bit sequence wrap, with a loss and a reorder there', () => {
    const buffer = new JitterBuffer();
    insertAll(buffer, [65533, 65535, 65534, 1, 2, 3, 4]);
    expect(pops(buffer, 8)).toEqual([65533, 65534, 65535, '-0', 1, 2, 3, 4]);
    expect(buffer.insert(packet(0))).toBe('late');
    expect(buffer.insert(packet(65535))).toBe('late');
    expect(buffer.stats).toMatchObject({ lost: 1, late: 2, reordered: 1 });
  });

  it('starts over on a new SSRC at once', () => {
    const buffer = new JitterBuffer();
    insertAll(buffer, [500, 501, 502, 503]);
    expect(pops(buffer, 1)).toEqual([500]);
    expect(buffer.insert(packet(9, 2))).toBe('resynced');
    insertAll(buffer, [10, 11], 2);
    expect(pops(buffer, 3)).toEqual([9, 10, 11]);
    expect(buffer.stats).toMatchObject({ resyncs: 1, lost: 0, late: 0 });
  });

  it('follows a sequence jump once a second packet confirms it, and ignores a single stray', () => {
    const buffer = new JitterBuffer();
    insertAll(buffer, [100, 101, 102, 103]);
    expect(pops(buffer, 2)).toEqual([100, 101]);
    expect(buffer.insert(packet(40000))).toBe('held'); // a stray...
    expect(buffer.insert(packet(104))).toBe('buffered'); // ...the stream goes on
    expect(buffer.insert(packet(40001))).toBe('held'); // not a successor of the stray, which was forgotten
    expect(pops(buffer, 3)).toEqual([102, 103, 104]);
    expect(buffer.insert(packet(40002))).toBe('resynced'); // follows 40001: a new sequence
    expect(buffer.insert(packet(40003))).toBe('buffered');
    expect(pops(buffer, 3)).toEqual([40001, 40002, 40003]);
    expect(buffer.stats).toMatchObject({ resyncs: 1, lost: 0 });
  });

  it('treats a jump backwards beyond the misorder limit as a new sequence too', () => {
    const buffer = new JitterBuffer({ targetFrames: 1 });
    insertAll(buffer, [5000, 5001]);
    expect(pops(buffer, 2)).toEqual([5000, 5001]);
    expect(buffer.insert(packet(4950))).toBe('late'); // 51 behind: late
    expect(buffer.insert(packet(10))).toBe('held'); // 4991 behind: a restart?
    expect(buffer.insert(packet(11))).toBe('resynced');
    expect(pops(buffer, 2)).toEqual([10, 11]);
  });

  it('waits again after running dry instead of counting a quiet sender as loss', () => {
    const buffer = new JitterBuffer({ targetFrames: 2 });
    insertAll(buffer, [1, 2, 3]);
    expect(pops(buffer, 5)).toEqual([1, 2, 3, 'w', 'w']);
    insertAll(buffer, [4]);
    expect(pops(buffer, 1)).toEqual(['w']); // refilling to the target
    insertAll(buffer, [5]);
    expect(pops(buffer, 3)).toEqual([4, 5, 'w']);
    expect(buffer.stats.lost).toBe(0);
  });

  it('drops the oldest frames of a burst beyond maxFrames to get back to the target delay', () => {
    const buffer = new JitterBuffer({ targetFrames: 3, maxFrames: 8 });
    insertAll(buffer, [0, 1, 2]);
    expect(pops(buffer, 1)).toEqual([0]);
    insertAll(buffer, [3, 4, 5, 6, 7, 8, 9, 10, 11, 13]); // a stall released all at once, 12 lost
    expect(buffer.depth).toBe(13);
    expect(pops(buffer, 4)).toEqual([11, '-12', 13, 'w']);
    expect(buffer.stats).toMatchObject({ dropped: 10, lost: 1 }); // 1-10 skipped, 12 missing
  });

  it('checks its options', () => {
    expect(() => new JitterBuffer({ targetFrames: 0 })).toThrow(RangeError);
    expect(() => new JitterBuffer({ targetFrames: 5, maxFrames: 4 })).toThrow(RangeError);
    expect(() => new JitterBuffer({ maxFrames: 65 })).toThrow(RangeError);
    expect(new JitterBuffer({ targetFrames: 5 }).maxFrames).toBe(20);
  });

  it('forgets everything on reset and starts from the next packet', () => {
    const buffer = new JitterBuffer({ targetFrames: 1 });
    insertAll(buffer, [7, 8]);
    buffer.reset();
    expect(show(buffer.pop())).toBe('w');
    insertAll(buffer, [3000]);
    expect(pops(buffer, 1)).toEqual([3000]);
    expect(buffer.stats.resyncs).toBe(0);
  });
});
