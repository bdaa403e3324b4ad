// The codec edge shared by the carriers that carry encoded audio (WebSocket media, SIP's RTP): one
// codec's conversion between Parley's 20 ms frames at 16 kHz and the payloads that travel. What is
// received comes out at the rate it travels when the session takes it (G.711 at 8 kHz, as a
// telephone carrier hands it over, so the recognizer knows it for telephone audio), else at 16 kHz
// (L16, and Opus decoded at 48 kHz and resampled). Each codec owns its resampler state and scratch.
import { SESSION_RATE, samplesPerFrame, type SampleRate } from './frame.ts';
import { alawDecodeInto, alawEncodeInto, mulawDecodeInto, mulawEncodeInto } from './g711.ts';
import { l16DecodeInto, l16EncodeInto } from './l16.ts';
import { createOpusCodec, type OpusCodec } from './opus.ts';
import { Resampler } from './resampler.ts';

export type PayloadCodecName = 'pcmu' | 'pcma' | 'l16' | 'opus';

/** RFC 6716 section 3.4 R2: no Opus packet is longer. */
export const MAX_OPUS_BYTES = 1275;
/** RFC 6716 section 3.2.5: one Opus packet carries at most 120 ms, six 20 ms frames. */
export const OPUS_MAX_PACKET_FRAMES = 6;
/** 20 ms at 16 kHz: what `encode` takes. */
const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);

/**
 * One codec's conversion between 16 kHz frames and payloads; it owns its resampler state and
 * scratch. It decodes to `receiveRate`.
 */
export interface PayloadCodec {
  /** The rate of what `decode` and `conceal` write. */
  readonly receiveRate: SampleRate;
  /** Encodes 320 samples at 16 kHz into `out` when given (fixed-size payloads), else into a new array. */
  encode(samples: Int16Array, out: Uint8Array | null): Uint8Array;
  /** Decodes one payload into `out` (room for `maxDecoded`); returns the samples, 0 when undecodable. */
  decode(payload: Uint8Array, out: Int16Array): number;
  /** Writes 20 ms in place of a lost payload into `out`; returns the samples. */
  conceal(out: Int16Array): number;
  /** The most samples one payload can decode to. */
  readonly maxDecoded: number;
  close(): void;
}

function concealWithSilence(out: Int16Array, rate: SampleRate): number {
  const samples = samplesPerFrame(rate);
  out.fill(0, 0, samples);
  return samples;
}

function g711Codec(
  encodeInto: (pcm: Int16Array, out: Uint8Array) => number,
  decodeInto: (codes: Uint8Array, out: Int16Array) => number,
): PayloadCodec {
  // What we send goes down to 8 kHz (the resampler keeps its filter history from frame to frame);
  // what we receive stays at 8 kHz, telephone audio as it came.
  const down = new Resampler(SESSION_RATE, 8000);
  const send8k = new Int16Array(samplesPerFrame(8000));
  return {
    receiveRate: 8000,
    maxDecoded: samplesPerFrame(8000),
    encode(samples, out) {
      down.process(samples, send8k);
      const payload = out ?? new Uint8Array(send8k.length);
      encodeInto(send8k, payload);
      return payload;
    },
    decode: (payload, out) => decodeInto(payload, out),
    conceal: (out) => concealWithSilence(out, 8000),
    close() {},
  };
}

const l16Codec: PayloadCodec = {
  receiveRate: SESSION_RATE,
  maxDecoded: FRAME_SAMPLES,
  encode(samples, out) {
    const payload = out ?? new Uint8Array(samples.length * 2);
    l16EncodeInto(samples, payload);
    return payload;
  },
  decode: (payload, out) => l16DecodeInto(payload, out),
  conceal: (out) => concealWithSilence(out, SESSION_RATE),
  close() {},
};

function opusCodec(): PayloadCodec {
  const up = new Resampler(SESSION_RATE, 48000);
  const down = new Resampler(48000, SESSION_RATE);
  const send48k = new Int16Array(samplesPerFrame(48000));
  let codec: OpusCodec | null = null;
  let closed = false;
  // Created on first use: the library loads then, and an edge that never codes costs nothing.
  const opus = (): OpusCodec => {
    if (closed) throw new Error('the payload codec is closed');
    return (codec ??= createOpusCodec({ sampleRate: 48000 }));
  };
  // Decoded packets may run to 120 ms; the common 20 ms one gets a ready-made view.
  const receive48k = new Int16Array(samplesPerFrame(48000) * OPUS_MAX_PACKET_FRAMES);
  const receive48kFrame = receive48k.subarray(0, samplesPerFrame(48000));
  const resampleDown = (samples: number, out16: Int16Array): number =>
    down.process(
      samples === receive48kFrame.length ? receive48kFrame : receive48k.subarray(0, samples),
      out16,
    );
  return {
    receiveRate: SESSION_RATE,
    maxDecoded: down.maxOutput(receive48k.length),
    encode(samples) {
      up.process(samples, send48k);
      return opus().encode(send48k); // already a new array
    },
    decode(payload, out16) {
      const samples = opus().decode(payload, receive48k);
      return samples === 0 ? 0 : resampleDown(samples, out16);
    },
    conceal(out16) {
      // Before any packet there is nothing to continue; and should libopus refuse the loss packet,
      // silence is still a frame.
      let samples = 0;
      try {
        if (codec !== null) samples = opus().conceal(receive48k);
      } catch {
        samples = 0;
      }
      return samples === 0 ? concealWithSilence(out16, SESSION_RATE) : resampleDown(samples, out16);
    },
    close() {
      closed = true;
      codec?.close();
    },
  };
}

export function createPayloadCodec(codec: PayloadCodecName): PayloadCodec {
  switch (codec) {
    case 'pcmu':
      return g711Codec(mulawEncodeInto, mulawDecodeInto);
    case 'pcma':
      return g711Codec(alawEncodeInto, alawDecodeInto);
    case 'l16':
      return l16Codec;
    case 'opus':
      return opusCodec();
  }
}
