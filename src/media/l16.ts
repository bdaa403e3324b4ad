// L16 (RFC 3551 section 4.5.11): 16-bit linear PCM in network byte order, as RTP and the
// WebSocket media streams carry it. Inside Parley samples are host-order Int16Array, so every edge
// swaps bytes explicitly instead of trusting the host's endianness.

function checkRoom(needed: number, available: number): void {
  if (available < needed) throw new RangeError(`output holds ${available}, ${needed} needed`);
}

/** Writes `pcm` big-endian into `out` (at least twice as long); returns the bytes written. */
export function l16EncodeInto(pcm: Int16Array, out: Uint8Array): number {
  checkRoom(pcm.length * 2, out.length);
  for (let i = 0, j = 0; i < pcm.length; i += 1, j += 2) {
    const sample = pcm[i]!;
    out[j] = sample >> 8;
    out[j + 1] = sample;
  }
  return pcm.length * 2;
}

/** Reads big-endian samples from `bytes` (an odd last byte is ignored); returns samples written. */
export function l16DecodeInto(bytes: Uint8Array, out: Int16Array): number {
  const count = bytes.length >> 1;
  checkRoom(count, out.length);
  for (let i = 0, j = 0; i < count; i += 1, j += 2) out[i] = (bytes[j]! << 8) | bytes[j + 1]!;
  return count;
}

export function l16Encode(pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length * 2);
  l16EncodeInto(pcm, out);
  return out;
}

export function l16Decode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  l16DecodeInto(bytes, out);
  return out;
}
