// Opus (RFC 6716), the codec of WebRTC and of WebSocket media that is not G.711, behind one small
// interface. The library is @evan/opus: libopus 1.x as a prebuilt Node addon with a WebAssembly
// fallback, so it installs without a compiler, and its wasm heap may grow under hundreds of codecs
// (opusscript, the other candidate, breaks once its heap grows). It is loaded on the first codec,
// not when this module is imported, since most processes that import `media` never use Opus.
import { createRequire } from 'node:module';
import type * as OpusModule from '@evan/opus';
import { FRAME_MS, type SampleRate } from './frame.ts';

type OpusLibrary = typeof OpusModule;

const require = createRequire(import.meta.url);
let library: OpusLibrary | undefined;
const opusLibrary = (): OpusLibrary => (library ??= require('@evan/opus') as OpusLibrary);

/** The longest audio one Opus packet can carry (RFC 6716 section 3.2.5). */
const MAX_PACKET_MS = 120;

export interface OpusCodecOptions {
  /** Rate of the PCM on both sides (Opus runs at 48 kHz inside and converts). */
  sampleRate: SampleRate;
  /** Target bits per second; libopus chooses when absent. */
  bitrate?: number;
  /** Encoder effort, 0-10 (libopus default 9): lower costs less CPU per call for a little quality. */
  complexity?: number;
}

/** One mono Opus stream pair: an encoder for what we send, a decoder for what we receive. */
export interface OpusCodec {
  readonly sampleRate: SampleRate;
  /** Samples in one 20 ms frame: what `encode` takes and `conceal` writes. */
  readonly frameSamples: number;
  /** Room `decode` needs in its output: the samples of the longest packet (120 ms). */
  readonly maxPacketSamples: number;
  /** Encodes one 20 ms frame into one packet (a new array the caller keeps). */
  encode(frame: Int16Array): Uint8Array;
  /**
   * Decodes one packet into `out` (room for `maxPacketSamples`); returns the samples written, or 0
   * when the packet is not valid Opus (treat it as lost and `conceal`).
   */
  decode(packet: Uint8Array, out: Int16Array): number;
  /**
   * Writes one 20 ms frame in place of a lost packet: libopus's packet-loss concealment, which
   * continues the last sound and fades it; silence before any packet arrived. Returns the samples.
   */
  conceal(out: Int16Array): number;
  /** Frees the codec's native memory; the codec is unusable afterwards. Idempotent. */
  close(): void;
}

/**
 * The TOC byte of an empty 20 ms packet in the last packet's mode and bandwidth. libopus decodes
 * a packet of only a TOC byte as loss of one frame of that duration (DTX), which is how concealment
 * of exactly 20 ms is asked for: a zero-length packet would conceal 120 ms.
 */
function concealmentToc(lastToc: number): number {
  // Configs 0-11 are SILK (10, 20, 40, 60 ms), 12-15 hybrid (10, 20 ms), 16-31 CELT (2.5, 5, 10,
  // 20 ms), each a run of sizes per bandwidth: keep the run, take its 20 ms member.
  const config = lastToc >> 3;
  let config20: number;
  if (config < 12) config20 = (config & ~3) | 1;
  else if (config < 16) config20 = (config & ~1) | 1;
  else config20 = config | 3;
  return (config20 << 3) | (lastToc & 0x04); // the same stereo flag; code 0, one (empty) frame
}

function free(coder: OpusModule.Encoder | OpusModule.Decoder): void {
  // The wasm build frees on drop(); the native addon has no drop() and frees when collected.
  (coder as { drop?: () => void }).drop?.();
}

export function createOpusCodec(options: OpusCodecOptions): OpusCodec {
  const { sampleRate, complexity } = options;
  if (complexity !== undefined && !(Number.isInteger(complexity) && complexity >= 0 && complexity <= 10)) {
    throw new RangeError(`Opus complexity is 0-10, got ${complexity}`);
  }
  const { Encoder, Decoder } = opusLibrary();
  const encoder = new Encoder({ channels: 1, sample_rate: sampleRate, application: 'voip' });
  const decoder = new Decoder({ channels: 1, sample_rate: sampleRate });
  if (options.bitrate !== undefined) encoder.bitrate = options.bitrate;
  if (complexity !== undefined) encoder.complexity = complexity as OpusModule.Encoder['complexity'];
  const frameSamples = (sampleRate * FRAME_MS) / 1000;
  const maxPacketSamples = (sampleRate * MAX_PACKET_MS) / 1000;
  const lossPacket = new Uint8Array(1);
  let lastToc = -1;
  let closed = false;

  const ensureOpen = (): void => {
    if (closed) throw new Error('the Opus codec is closed');
  };
  const copyOut = (pcm: Uint8Array, out: Int16Array): number => {
    const samples = pcm.byteLength >> 1;
    if (pcm.byteOffset % 2 === 0) out.set(new Int16Array(pcm.buffer, pcm.byteOffset, samples));
    else out.set(new Int16Array(pcm.slice().buffer, 0, samples));
    return samples;
  };

  return {
    sampleRate,
    frameSamples,
    maxPacketSamples,
    encode(frame) {
      ensureOpen();
      if (frame.length !== frameSamples) {
        throw new RangeError(`an Opus frame is ${frameSamples} samples, got ${frame.length}`);
      }
      return encoder.encode(frame);
    },
    decode(packet, out) {
      ensureOpen();
      if (out.length < maxPacketSamples)
        throw new RangeError(`decode needs room for ${maxPacketSamples} samples`);
      if (packet.length === 0) return 0;
      let pcm: Uint8Array;
      try {
        pcm = decoder.decode(packet);
      } catch {
        return 0; // libopus refused the packet (corrupt or truncated)
      }
      lastToc = packet[0]!;
      return copyOut(pcm, out);
    },
    conceal(out) {
      ensureOpen();
      if (out.length < frameSamples) throw new RangeError(`conceal needs room for ${frameSamples} samples`);
      if (lastToc < 0) {
        out.fill(0, 0, frameSamples);
        return frameSamples;
      }
      lossPacket[0] = concealmentToc(lastToc);
      return copyOut(decoder.decode(lossPacket), out);
    },
    close() {
      if (closed) return;
      closed = true;
      free(encoder);
      free(decoder);
    },
  };
}
