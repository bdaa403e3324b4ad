import { describe, expect, it } from 'vitest';
import { buildRtp, parseRtp, rtpLength, writeRtp, type RtpPacket, type RtpParseResult } from './rtp.ts';
import { seededRandom } from './testing/signals.ts';

function parsed(result: RtpParseResult): RtpPacket {
  if (!result.ok) throw new Error(`parse failed: ${result.error}`);
  return result.packet;
}

describe('RTP packets', () => {
  it('parses a hand-written packet field by field', () => {
    const bytes = Uint8Array.of(
      0x80,
      0x80 | 8,
      0x12,
      0x34,
      0xde,
      0xad,
      0xbe,
      0xef,
      0x01,
      0x02,
      0x03,
      0x04,
      9,
      8,
      7,
    );
    const packet = parsed(parseRtp(bytes));
    expect(packet).toMatchObject({
      payloadType: 8,
      marker: true,
      sequence: 0x1234,
      timestamp: 0xdeadbeef,
      ssrc: 0x01020304,
    });
    expect(packet.csrcs).toEqual([]);
    expect(packet.extension).toBeNull();
    expect(Array.from(packet.payload)).toEqual([9, 8, 7]);
    // The payload is a view into the bytes given, not a copy.
    expect(packet.payload.buffer).toBe(bytes.buffer);
  });

  it('skips CSRCs and a header extension to find the payload, and strips padding', () => {
    const bytes = Uint8Array.of(
      0xb2,
      111,
      0,
      1,
      0,
      0,
      0,
      160,
      0,
      0,
      0,
      42, // V=2 P X CC=2, PT 111
      0,
      0,
      0,
      7,
      0xff,
      0xff,
      0xff,
      0xff, // two CSRCs
      0xbe,
      0xde,
      0,
      1,
      0x10,
      0xaa,
      0,
      0, // extension: profile 0xBEDE, one word
      5,
      6, // payload
      0,
      0,
      3, // three bytes of padding
    );
    const packet = parsed(parseRtp(bytes));
    expect(packet.csrcs).toEqual([7, 0xffffffff]);
    expect(packet.extension?.profile).toBe(0xbede);
    expect(Array.from(packet.extension?.data ?? [])).toEqual([0x10, 0xaa, 0, 0]);
    expect(Array.from(packet.payload)).toEqual([5, 6]);
    expect(packet).toMatchObject({ payloadType: 111, marker: false, sequence: 1, timestamp: 160, ssrc: 42 });
  });

  it('builds what it parses, for every header feature and the largest field values', () => {
    const cases = [
      { payloadType: 0, sequence: 0, timestamp: 0, ssrc: 0, payload: new Uint8Array(160) },
      {
        payloadType: 127,
        marker: true,
        sequence: 65535,
        timestamp: 0xffffffff,
        ssrc: 0xffffffff,
        csrcs: Array.from({ length: 15 }, (_, i) => i * 0x11111111),
        extension: { profile: 0x1000, data: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) },
        payload: Uint8Array.of(1, 2, 3),
        padding: 5,
      },
      { payloadType: 101, sequence: 7, timestamp: 8, ssrc: 9, payload: new Uint8Array(0), padding: 1 },
      {
        payloadType: 96,
        sequence: 7,
        timestamp: 8,
        ssrc: 9,
        extension: { profile: 1, data: new Uint8Array(0) },
        payload: Uint8Array.of(4),
      },
    ];
    for (const init of cases) {
      const bytes = buildRtp(init);
      expect(bytes.length).toBe(rtpLength(init));
      const packet = parsed(parseRtp(bytes));
      expect(packet).toMatchObject({
        payloadType: init.payloadType,
        marker: init.marker ?? false,
        sequence: init.sequence,
        timestamp: init.timestamp,
        ssrc: init.ssrc,
        csrcs: init.csrcs ?? [],
      });
      expect(Array.from(packet.payload)).toEqual(Array.from(init.payload));
      expect(packet.extension?.profile).toBe(init.extension?.profile);
      expect(Array.from(packet.extension?.data ?? [])).toEqual(Array.from(init.extension?.data ?? []));
      if (init.padding) expect(bytes[bytes.length - 1]).toBe(init.padding);
    }
  });

  it('writes into a caller buffer and refuses a short one or bad fields', () => {
    const init = { payloadType: 0, sequence: 1, timestamp: 2, ssrc: 3, payload: Uint8Array.of(9, 9) };
    const out = new Uint8Array(20).fill(0xee);
    expect(writeRtp(init, out.subarray(2))).toBe(14);
    expect(out[1]).toBe(0xee);
    expect(Array.from(parsed(parseRtp(out.subarray(2, 16))).payload)).toEqual([9, 9]);
    expect(() => writeRtp(init, new Uint8Array(13))).toThrow(RangeError);
    expect(() => buildRtp({ ...init, payloadType: 128 })).toThrow(RangeError);
    expect(() => buildRtp({ ...init, sequence: 65536 })).toThrow(RangeError);
    expect(() => buildRtp({ ...init, timestamp: -1 })).toThrow(RangeError);
    expect(() => buildRtp({ ...init, ssrc: 1.5 })).toThrow(RangeError);
    expect(() => buildRtp({ ...init, csrcs: new Array(16).fill(1) })).toThrow(RangeError);
    expect(() => buildRtp({ ...init, padding: 256 })).toThrow(RangeError);
    expect(() => buildRtp({ ...init, extension: { profile: 1, data: new Uint8Array(3) } })).toThrow(
      RangeError,
    );
  });

  it('answers an error for each kind of malformed packet', () => {
    const good = buildRtp({
      payloadType: 0,
      sequence: 1,
      timestamp: 2,
      ssrc: 3,
      payload: Uint8Array.of(1, 2, 3, 4),
    });
    const withFirst = (first: number, bytes = good) => Uint8Array.of(first, ...bytes.subarray(1));
    for (let n = 0; n < 12; n += 1)
      expect(parseRtp(good.subarray(0, n))).toEqual({ ok: false, error: 'too_short' });
    for (const version of [0, 1, 3])
      expect(parseRtp(withFirst(version << 6))).toEqual({ ok: false, error: 'bad_version' });
    expect(parseRtp(withFirst(0x82))).toEqual({ ok: false, error: 'bad_csrc_count' }); // 2 CSRCs need 8 bytes, 4 left
    expect(parseRtp(withFirst(0x81)).ok).toBe(true); // one CSRC fits exactly
    expect(parseRtp(withFirst(0x90, good.subarray(0, 14)))).toEqual({ ok: false, error: 'bad_extension' }); // header cut
    expect(parseRtp(Uint8Array.of(...withFirst(0x90).subarray(0, 12), 0, 0, 0, 2, 1, 2, 3, 4))).toEqual({
      ok: false,
      error: 'bad_extension', // claims 8 bytes, has 4
    });
    expect(parseRtp(Uint8Array.of(...withFirst(0xa0).subarray(0, 15), 0))).toEqual({
      ok: false,
      error: 'bad_padding',
    });
    expect(parseRtp(Uint8Array.of(...withFirst(0xa0).subarray(0, 15), 5))).toEqual({
      ok: false,
      error: 'bad_padding',
    });
    const allPadding = parsed(parseRtp(Uint8Array.of(...withFirst(0xa0).subarray(0, 15), 4)));
    expect(allPadding.payload.length).toBe(0);
  });

  it('never throws on random bytes, and every payload it finds lies inside the packet', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 20000; i += 1) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 256));
      if (bytes.length > 0) bytes[0] = (bytes[0]! & 0x3f) | 0x80; // mostly version 2, to reach the deeper checks
      const result = parseRtp(bytes);
      if (result.ok) {
        const { payload } = result.packet;
        expect(payload.byteOffset + payload.length).toBeLessThanOrEqual(bytes.length);
        expect(payload.byteOffset).toBeGreaterThanOrEqual(12);
      }
    }
  });
});
