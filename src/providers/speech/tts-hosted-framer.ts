import { mulawDecode, samplesPerFrame, type SampleRate } from '../../media/index.ts';

// Cuts a hosted TTS's audio chunks into 20 ms frames. Vendors cut their chunks anywhere (mid
// frame, even mid sample), so a partial frame, and an odd byte of 16-bit PCM, carry over to the
// next chunk of the same segment; the segment's last partial frame comes out at its end.

/** What the vendor sends: raw 16-bit little-endian PCM, or G.711 mu-law (8 kHz only). */
export type WireEncoding = 'pcm_s16le' | 'mulaw';

export interface PcmFramer {
  /** Adds a chunk's bytes; returns the frames it completes (full 20 ms frames). */
  push(bytes: Uint8Array): Int16Array[];
  /** The segment ended: the partial frame left (or null), and whether half a sample was left over. */
  end(): { rest: Int16Array | null; oddByte: boolean };
  /** ms of audio pushed so far (at the rate asked for). */
  readonly ms: number;
}

export function createPcmFramer(rate: SampleRate, encoding: WireEncoding): PcmFramer {
  const frameLength = samplesPerFrame(rate);
  let frame = new Int16Array(frameLength);
  let filled = 0;
  let odd: number | null = null; // a low byte waiting for its high byte
  let samples = 0;

  const decode = (bytes: Uint8Array): Int16Array => {
    if (encoding === 'mulaw') return mulawDecode(bytes);
    let from = 0;
    const out = new Int16Array(Math.floor((bytes.length + (odd === null ? 0 : 1)) / 2));
    let n = 0;
    if (odd !== null && bytes.length > 0) {
      out[n++] = (((bytes[0]! << 8) | odd) << 16) >> 16;
      odd = null;
      from = 1;
    }
    for (; from + 1 < bytes.length; from += 2)
      out[n++] = (((bytes[from + 1]! << 8) | bytes[from]!) << 16) >> 16;
    if (from < bytes.length) odd = bytes[from]!;
    return out;
  };

  return {
    push(bytes) {
      const input = decode(bytes);
      samples += input.length;
      const out: Int16Array[] = [];
      for (let i = 0; i < input.length;) {
        const take = Math.min(frameLength - filled, input.length - i);
        frame.set(input.subarray(i, i + take), filled);
        filled += take;
        i += take;
        if (filled === frameLength) {
          out.push(frame);
          frame = new Int16Array(frameLength);
          filled = 0;
        }
      }
      return out;
    },
    end() {
      const rest = filled > 0 ? frame.slice(0, filled) : null;
      const oddByte = odd !== null;
      frame = new Int16Array(frameLength);
      filled = 0;
      odd = null;
      return { rest, oddByte };
    },
    get ms() {
      return (samples * 1000) / rate;
    },
  };
}
