import { describe, expect, it } from 'vitest';
import {
  alawDecode,
  alawDecodeInto,
  alawEncode,
  alawEncodeInto,
  mulawDecode,
  mulawDecodeInto,
  mulawEncode,
  mulawEncodeInto,
} from './g711.ts';
import { asBytes, asInt16, sox } from './testing/sox.ts';

// Every 16-bit value once, and every 8-bit code once: the whole domain of each direction.
const allSamples = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
const allCodes = Uint8Array.from({ length: 256 }, (_, i) => i);
const PCM = ['-t', 'raw', '-r', '8000', '-e', 'signed', '-b', '16', '-c', '1'];

const laws = [
  {
    name: 'mu-law',
    sox: 'u-law',
    encode: mulawEncode,
    decode: mulawDecode,
    encodeInto: mulawEncodeInto,
    decodeInto: mulawDecodeInto,
  },
  {
    name: 'A-law',
    sox: 'a-law',
    encode: alawEncode,
    decode: alawDecode,
    encodeInto: alawEncodeInto,
    decodeInto: alawDecodeInto,
  },
];

describe.each(laws)('G.711 $name', (law) => {
  const codec = ['-t', 'raw', '-r', '8000', '-e', law.sox, '-b', '8', '-c', '1'];

  it('encodes all 65536 sample values exactly as SoX does', () => {
    const expected = sox([...PCM, 'IN', ...codec, 'OUT'], asBytes(allSamples));
    expect(expected).toHaveLength(65536);
    expect(Buffer.from(law.encode(allSamples)).equals(Buffer.from(expected))).toBe(true);
  });

  it('decodes all 256 codes exactly as SoX does', () => {
    const expected = asInt16(sox([...codec, 'IN', ...PCM, 'OUT'], allCodes));
    expect(Array.from(law.decode(allCodes))).toEqual(Array.from(expected));
  });

  it('round-trips every code through decode and encode (mu-law has two zeros: 0x7f reads as 0xff)', () => {
    const back = law.encode(law.decode(allCodes));
    for (const code of allCodes)
      expect(back[code]).toBe(law.name === 'mu-law' && code === 0x7f ? 0xff : code);
  });

  it('decodes each sample to a level within half a step of it (G.711 reconstructs mid-interval)', () => {
    const levels = Array.from(new Set(law.decode(allCodes))).sort((x, y) => x - y);
    const halfStep = new Map(
      levels.map((level, i) => {
        const below = i > 0 ? level - levels[i - 1]! : 0;
        const above = i < levels.length - 1 ? levels[i + 1]! - level : 0;
        return [level, Math.max(below, above) / 2];
      }),
    );
    const top = levels[levels.length - 1]!;
    const resolution = law.name === 'mu-law' ? 4 : 8; // it reads 14 and 13 of the 16 bits
    const decoded = law.decode(law.encode(allSamples));
    const outside: number[] = [];
    for (let i = 0; i < allSamples.length; i += 1) {
      const x = allSamples[i]!;
      const allowed = halfStep.get(decoded[i]!)! + resolution + Math.max(0, Math.abs(x) - top);
      if (Math.abs(decoded[i]! - x) > allowed) outside.push(x);
    }
    expect(outside).toEqual([]);
  });

  it('writes into a caller buffer at an offset and refuses one too small', () => {
    const frame = allSamples.subarray(30000, 30160);
    const out = new Uint8Array(200);
    expect(law.encodeInto(frame, out.subarray(20))).toBe(160);
    expect(Array.from(out.subarray(20, 180))).toEqual(Array.from(law.encode(frame)));
    expect(out[19]).toBe(0);
    expect(out[180]).toBe(0);
    const back = new Int16Array(160);
    expect(law.decodeInto(out.subarray(20, 180), back)).toBe(160);
    expect(Array.from(back)).toEqual(Array.from(law.decode(law.encode(frame))));
    expect(() => law.encodeInto(frame, new Uint8Array(159))).toThrow(RangeError);
    expect(() => law.decodeInto(out, new Int16Array(10))).toThrow(RangeError);
  });
});
