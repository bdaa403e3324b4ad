import { describe, expect, it } from 'vitest';
import { createOpusCodec, type OpusCodec } from './opus.ts';
import { correlation, rms, speechLike } from './testing/signals.ts';

/** Encodes `input` frame by frame and decodes it again; `lose` names frames whose packet is dropped. */
function roundTrip(codec: OpusCodec, input: Int16Array, lose = new Set<number>()) {
  const n = codec.frameSamples;
  const output = new Int16Array(input.length);
  const scratch = new Int16Array(codec.maxPacketSamples);
  const sizes: number[] = [];
  for (let f = 0; f * n < input.length; f += 1) {
    const packet = codec.encode(input.subarray(f * n, (f + 1) * n));
    sizes.push(packet.length);
    const written = lose.has(f) ? codec.conceal(scratch) : codec.decode(packet, scratch);
    expect(written).toBe(n);
    output.set(scratch.subarray(0, n), f * n);
  }
  return { output, sizes };
}

/** The best correlation of `b` against `a` over lags up to `maxLag` (the codec's delay), and that lag. */
function aligned(a: Int16Array, b: Int16Array, maxLag: number, from = 0, to = a.length - maxLag) {
  let best = { r: -1, lag: 0 };
  for (let lag = 0; lag <= maxLag; lag += 1) {
    const r = correlation(a.subarray(from, to), b.subarray(from + lag, to + lag));
    if (r > best.r) best = { r, lag };
  }
  return best;
}

describe.each([48000, 16000] as const)('Opus at %i Hz', (rate) => {
  it('round-trips speech-like audio closely in plausible packet sizes', () => {
    const codec = createOpusCodec({ sampleRate: rate });
    try {
      const input = speechLike(rate, rate * 2);
      const { output, sizes } = roundTrip(codec, input);
      expect(codec.frameSamples).toBe(rate / 50);
      const { r } = aligned(input, output, rate / 100, rate / 10);
      expect(r).toBeGreaterThan(0.9);
      const kbps = (sizes.reduce((a, b) => a + b, 0) * 8) / 2 / 1000;
      expect(kbps).toBeGreaterThan(6);
      expect(kbps).toBeLessThan(128);
      for (const size of sizes) expect(size).toBeGreaterThanOrEqual(2);
    } finally {
      codec.close();
    }
  });

  it('follows the bitrate it is given', () => {
    const low = createOpusCodec({ sampleRate: rate, bitrate: 12000 });
    const high = createOpusCodec({ sampleRate: rate, bitrate: 48000 });
    const input = speechLike(rate, rate);
    const kbps = (codec: OpusCodec) => (roundTrip(codec, input).sizes.reduce((a, b) => a + b, 0) * 8) / 1000;
    const [lowRate, highRate] = [kbps(low), kbps(high)];
    expect(lowRate).toBeGreaterThan(8);
    expect(lowRate).toBeLessThan(16);
    expect(highRate).toBeGreaterThan(36);
    expect(highRate).toBeLessThan(60);
    low.close();
    high.close();
  });

  it('still codes closely at a low complexity, and refuses one out of range', () => {
    const input = speechLike(rate, rate / 2);
    const fast = createOpusCodec({ sampleRate: rate, complexity: 1 });
    const { output } = roundTrip(fast, input);
    expect(aligned(input, output, rate / 100, rate / 10).r).toBeGreaterThan(0.8);
    fast.close();
    expect(() => createOpusCodec({ sampleRate: rate, complexity: 11 })).toThrow(RangeError);
    expect(() => createOpusCodec({ sampleRate: rate, complexity: 2.5 })).toThrow(RangeError);
  });

  it('conceals a lost packet with sound that continues the signal, then decodes on', () => {
    const codec = createOpusCodec({ sampleRate: rate });
    const input = speechLike(rate, rate);
    const n = codec.frameSamples;
    const { output } = roundTrip(codec, input, new Set([25]));
    const { lag } = aligned(input, output, rate / 100, 5 * n, 20 * n);
    // The concealed frame stands in for what was lost: similar in level and in shape.
    const concealed = output.subarray(25 * n, 26 * n);
    const lost = input.subarray(25 * n - lag, 26 * n - lag);
    expect(rms(concealed)).toBeGreaterThan(rms(lost) / 4);
    expect(correlation(concealed, lost)).toBeGreaterThan(0.5);
    // The frames after the loss are back to a close copy.
    expect(
      correlation(input.subarray(30 * n, 45 * n), output.subarray(30 * n + lag, 45 * n + lag)),
    ).toBeGreaterThan(0.9);
    codec.close();
  });

  it('conceals with silence before any packet and answers 0 for a packet that is not Opus', () => {
    const codec = createOpusCodec({ sampleRate: rate });
    const out = new Int16Array(codec.maxPacketSamples).fill(7);
    expect(codec.conceal(out)).toBe(rate / 50);
    expect(out.subarray(0, rate / 50).every((x) => x === 0)).toBe(true);
    expect(codec.decode(new Uint8Array(0), out)).toBe(0);
    // Code 3 (several frames) with a frame count of 0 is invalid (RFC 6716 section 3.2.5).
    expect(codec.decode(Uint8Array.of(0x7b, 0x00), out)).toBe(0);
    // A code 1 packet (two equal frames) whose payload cannot split in two.
    expect(codec.decode(Uint8Array.of(0x79, 1, 2, 3), out)).toBe(0);
    codec.close();
  });

  it('refuses wrong frame sizes and small buffers, and is unusable once closed', () => {
    const codec = createOpusCodec({ sampleRate: rate });
    expect(() => codec.encode(new Int16Array(rate / 50 - 1))).toThrow(RangeError);
    const packet = codec.encode(new Int16Array(rate / 50));
    expect(() => codec.decode(packet, new Int16Array(rate / 50))).toThrow(RangeError);
    expect(() => codec.conceal(new Int16Array(10))).toThrow(RangeError);
    codec.close();
    codec.close();
    expect(() => codec.encode(new Int16Array(rate / 50))).toThrow(/closed/);
  });
});

describe('Opus concealment in each coding mode', () => {
  it.each([
    { mode: 'SILK', sampleRate: 16000 as const, bitrate: 16000, configs: [0, 11] },
    { mode: 'hybrid', sampleRate: 48000 as const, bitrate: 24000, configs: [12, 15] },
    { mode: 'CELT', sampleRate: 48000 as const, bitrate: 96000, configs: [16, 31] },
  ])('conceals exactly one 20 ms frame after $mode packets', ({ sampleRate, bitrate, configs }) => {
    const codec = createOpusCodec({ sampleRate, bitrate });
    const input = speechLike(sampleRate, sampleRate / 2);
    const n = codec.frameSamples;
    const out = new Int16Array(codec.maxPacketSamples);
    let seen = false;
    for (let f = 0; f < 25; f += 1) {
      const packet = codec.encode(input.subarray(f * n, (f + 1) * n));
      const config = packet[0]! >> 3;
      if (f % 5 !== 4) {
        expect(codec.decode(packet, out)).toBe(n);
        seen ||= config >= configs[0]! && config <= configs[1]!;
      } else {
        expect(codec.conceal(out)).toBe(n);
        expect(rms(out.subarray(0, n))).toBeGreaterThan(50);
      }
    }
    expect(seen).toBe(true);
    codec.close();
  });
});

describe('Opus codecs in numbers', () => {
  it('runs hundreds of codecs side by side without one disturbing another', () => {
    const input = speechLike(16000, 3200);
    const reference = createOpusCodec({ sampleRate: 16000 });
    const expected = roundTrip(reference, input).output;
    reference.close();
    const codecs = Array.from({ length: 300 }, () => createOpusCodec({ sampleRate: 16000 }));
    for (const codec of codecs)
      expect(Array.from(roundTrip(codec, input).output)).toEqual(Array.from(expected));
    for (const codec of codecs) codec.close();
  });
});
