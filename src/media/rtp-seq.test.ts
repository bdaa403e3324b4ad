import { describe, expect, it } from 'vitest';
import { seqAdd, seqDiff, tsAdd, tsDiff } from './rtp-seq.ts';

describe('RTP sequence and timestamp arithmetic', () => {
  it('measures sequence distance across the 16-bit wrap', () => {
    expect(seqDiff(5, 3)).toBe(2);
    expect(seqDiff(3, 5)).toBe(-2);
    expect(seqDiff(0, 65535)).toBe(1);
    expect(seqDiff(65535, 0)).toBe(-1);
    expect(seqDiff(2, 65530)).toBe(8);
    expect(seqDiff(65530, 2)).toBe(-8);
    expect(seqDiff(32767, 0)).toBe(32767);
    expect(seqDiff(32768, 0)).toBe(-32768);
    expect(seqDiff(1234, 1234)).toBe(0);
  });

  it('steps sequence numbers across the wrap both ways', () => {
    expect(seqAdd(65535, 1)).toBe(0);
    expect(seqAdd(65530, 10)).toBe(4);
    expect(seqAdd(3, -5)).toBe(65534);
    for (let a = 0; a < 65536; a += 997)
      for (const n of [-40000, -1, 0, 1, 300, 32767]) {
        expect(seqDiff(seqAdd(a, n), a)).toBe(((n + 32768) & 0xffff) - 32768);
      }
  });

  it('measures and steps timestamps across the 32-bit wrap', () => {
    expect(tsDiff(160, 0)).toBe(160);
    expect(tsDiff(100, 4294967200)).toBe(196);
    expect(tsDiff(4294967200, 100)).toBe(-196);
    expect(tsAdd(4294967200, 160)).toBe(64);
    expect(tsAdd(64, -160)).toBe(4294967200);
    expect(tsAdd(0, -1)).toBe(4294967295);
    expect(tsDiff(2 ** 31 - 1, 0)).toBe(2 ** 31 - 1);
    expect(tsDiff(2 ** 31, 0)).toBe(-(2 ** 31));
  });
});
