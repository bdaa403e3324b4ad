// G.711 mu-law (PCMU) and A-law (PCMA), the codecs every telephone carrier speaks. Both directions
// are table lookups: a 64 KB table per law maps every 16-bit sample to its code, so encoding is one
// load per sample with no branches, and a 256-entry table decodes. The tables are built once, at
// load, from the ITU G.711 segment rules. The encoder rounds each sample to the nearest code step
// (as SoX does) rather than truncating, which halves the bias on quiet signals.

const MULAW_CLIP = 8159; // largest 14-bit magnitude mu-law represents
const MULAW_BIAS = 33; // 0x84 >> 2: shifts the segments so each starts on a power of two
const MULAW_SEGMENT_ENDS = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];
const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function segmentOf(magnitude: number, ends: readonly number[]): number {
  let segment = 0;
  while (segment < 8 && magnitude > (ends[segment] ?? 0)) segment += 1;
  return segment;
}

/** mu-law code of a 14-bit sample (G.711 table 2a). */
function mulawOf14(sample: number): number {
  const mask = sample < 0 ? 0x7f : 0xff;
  const magnitude = Math.min(Math.abs(sample), MULAW_CLIP) + MULAW_BIAS;
  const segment = segmentOf(magnitude, MULAW_SEGMENT_ENDS);
  if (segment >= 8) return 0x7f ^ mask;
  return ((segment << 4) | ((magnitude >> (segment + 1)) & 0x0f)) ^ mask;
}

/** A-law code of a 13-bit sample (G.711 table 1a); negatives are one's-complement magnitudes. */
function alawOf13(sample: number): number {
  const mask = sample >= 0 ? 0xd5 : 0x55;
  const magnitude = sample >= 0 ? sample : -sample - 1;
  const segment = segmentOf(magnitude, ALAW_SEGMENT_ENDS);
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (magnitude >> 1) & 0x0f : (magnitude >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

function mulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  const segment = (a >> 4) & 0x07;
  let magnitude = (a & 0x0f) << 4;
  if (segment === 0) magnitude += 8;
  else magnitude = (magnitude + 0x108) << (segment - 1);
  return a & 0x80 ? magnitude : -magnitude;
}

// Indexed by the sample's 16-bit two's-complement pattern (`sample & 0xffff`).
const MULAW_ENCODE = new Uint8Array(65536);
const ALAW_ENCODE = new Uint8Array(65536);
for (let pattern = 0; pattern < 65536; pattern += 1) {
  const sample = (pattern << 16) >> 16;
  MULAW_ENCODE[pattern] = mulawOf14(Math.min(8191, (sample + 2) >> 2));
  ALAW_ENCODE[pattern] = alawOf13(Math.min(4095, (sample + 4) >> 3));
}

const MULAW_DECODE = new Int16Array(256);
const ALAW_DECODE = new Int16Array(256);
for (let code = 0; code < 256; code += 1) {
  MULAW_DECODE[code] = mulawToLinear(code);
  ALAW_DECODE[code] = alawToLinear(code);
}

function checkRoom(needed: number, out: ArrayLike<number>): void {
  if (out.length < needed) throw new RangeError(`output holds ${out.length} samples, ${needed} needed`);
}

/** Encodes `pcm` into `out` (at least as long); returns the number of bytes written. */
export function mulawEncodeInto(pcm: Int16Array, out: Uint8Array): number {
  checkRoom(pcm.length, out);
  for (let i = 0; i < pcm.length; i += 1) out[i] = MULAW_ENCODE[pcm[i]! & 0xffff]!;
  return pcm.length;
}

/** Decodes `codes` into `out` (at least as long); returns the number of samples written. */
export function mulawDecodeInto(codes: Uint8Array, out: Int16Array): number {
  checkRoom(codes.length, out);
  for (let i = 0; i < codes.length; i += 1) out[i] = MULAW_DECODE[codes[i]!]!;
  return codes.length;
}

/** Encodes `pcm` into `out` (at least as long); returns the number of bytes written. */
export function alawEncodeInto(pcm: Int16Array, out: Uint8Array): number {
  checkRoom(pcm.length, out);
  for (let i = 0; i < pcm.length; i += 1) out[i] = ALAW_ENCODE[pcm[i]! & 0xffff]!;
  return pcm.length;
}

/** Decodes `codes` into `out` (at least as long); returns the number of samples written. */
export function alawDecodeInto(codes: Uint8Array, out: Int16Array): number {
  checkRoom(codes.length, out);
  for (let i = 0; i < codes.length; i += 1) out[i] = ALAW_DECODE[codes[i]!]!;
  return codes.length;
}

export function mulawEncode(pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length);
  mulawEncodeInto(pcm, out);
  return out;
}

export function mulawDecode(codes: Uint8Array): Int16Array {
  const out = new Int16Array(codes.length);
  mulawDecodeInto(codes, out);
  return out;
}

export function alawEncode(pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length);
  alawEncodeInto(pcm, out);
  return out;
}

export function alawDecode(codes: Uint8Array): Int16Array {
  const out = new Int16Array(codes.length);
  alawDecodeInto(codes, out);
  return out;
}
