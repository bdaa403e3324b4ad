import { describe, expect, it } from 'vitest';
import { l16Decode, l16DecodeInto, l16Encode, l16EncodeInto } from './l16.ts';
import { asBytes, sox } from './testing/sox.ts';

const allSamples = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);

describe('L16', () => {
  it('writes network byte order, high byte first', () => {
    expect(Array.from(l16Encode(Int16Array.of(0x1234, -2, 0, -32768, 32767)))).toEqual([
      0x12, 0x34, 0xff, 0xfe, 0x00, 0x00, 0x80, 0x00, 0x7f, 0xff,
    ]);
    expect(Array.from(l16Decode(Uint8Array.of(0x12, 0x34, 0xff, 0xfe, 0x80, 0x00)))).toEqual([
      0x1234, -2, -32768,
    ]);
  });

  it('matches SoX big-endian output for every sample value and round-trips them', () => {
    const pcm = ['-t', 'raw', '-r', '8000', '-e', 'signed', '-b', '16', '-c', '1'];
    const expected = sox([...pcm, 'IN', ...pcm, '-B', 'OUT'], asBytes(allSamples));
    const encoded = l16Encode(allSamples);
    expect(Buffer.from(encoded).equals(Buffer.from(expected))).toBe(true);
    expect(Array.from(l16Decode(encoded))).toEqual(Array.from(allSamples));
  });

  it('writes into caller buffers, ignores an odd trailing byte and refuses a short buffer', () => {
    const out = new Uint8Array(8);
    expect(l16EncodeInto(Int16Array.of(1, 2, 3), out)).toBe(6);
    expect(Array.from(out)).toEqual([0, 1, 0, 2, 0, 3, 0, 0]);
    const back = new Int16Array(4);
    expect(l16DecodeInto(Uint8Array.of(0, 1, 0, 2, 9), back)).toBe(2);
    expect(Array.from(back)).toEqual([1, 2, 0, 0]);
    expect(() => l16EncodeInto(Int16Array.of(1, 2), new Uint8Array(3))).toThrow(RangeError);
    expect(() => l16DecodeInto(new Uint8Array(6), new Int16Array(2))).toThrow(RangeError);
  });
});
