import type { WebCallOpus, WebCallOpusSinks } from './ws-media.ts';

// The browser's own Opus for the web call: WebCodecs' AudioEncoder and AudioDecoder (Chromium,
// Safari 26, Firefox), mono at 48 kHz, one 20 ms packet per frame, raw packets (no Ogg). Both run
// off the page's thread and answer through callbacks, in order. Types are declared here, as the
// SDK builds without the DOM library.

interface AudioDataLike {
  readonly numberOfFrames: number;
  copyTo(destination: Float32Array, options: { planeIndex: number; format: 'f32-planar' }): void;
  close(): void;
}
interface EncodedAudioChunkLike {
  readonly byteLength: number;
  copyTo(destination: Uint8Array): void;
}
interface CodecLike {
  configure(config: Record<string, unknown>): void;
  close(): void;
  readonly state: string;
}
interface AudioEncoderLike extends CodecLike {
  encode(data: AudioDataLike): void;
}
interface AudioDecoderLike extends CodecLike {
  decode(chunk: unknown): void;
}
interface WebCodecs {
  AudioEncoder: new (init: {
    output: (chunk: EncodedAudioChunkLike) => void;
    error: (e: unknown) => void;
  }) => AudioEncoderLike;
  AudioDecoder: new (init: {
    output: (data: AudioDataLike) => void;
    error: (e: unknown) => void;
  }) => AudioDecoderLike;
  AudioData: new (init: {
    format: 's16';
    sampleRate: number;
    numberOfFrames: number;
    numberOfChannels: number;
    timestamp: number;
    data: Int16Array;
  }) => AudioDataLike;
  EncodedAudioChunk: new (init: { type: 'key'; timestamp: number; data: Uint8Array }) => unknown;
}

const RATE = 48_000;
const FRAME_US = 20_000;
/** Speech at 32 kbit/s: wideband voice with room to spare (WebRTC's default for mono is 32k too). */
const BITRATE = 32_000;

const webCodecs = (): Partial<WebCodecs> => globalThis as unknown as Partial<WebCodecs>;

export function hasWebCodecsAudio(): boolean {
  const w = webCodecs();
  return Boolean(w.AudioEncoder && w.AudioDecoder && w.AudioData && w.EncodedAudioChunk);
}

/** A WebCallOpusFactory over WebCodecs; rejects where the runtime has no Opus encoder. */
export async function webCodecsOpus(sinks: WebCallOpusSinks): Promise<WebCallOpus> {
  if (!hasWebCodecsAudio()) throw new TypeError('WebCodecs audio is not available here');
  const { AudioEncoder, AudioDecoder, AudioData, EncodedAudioChunk } = webCodecs() as WebCodecs;
  const encoderConfig = {
    codec: 'opus',
    sampleRate: RATE,
    numberOfChannels: 1,
    bitrate: BITRATE,
    opus: { frameDuration: FRAME_US, format: 'opus' },
  };
  const check = (
    AudioEncoder as unknown as { isConfigSupported?: (c: unknown) => Promise<{ supported?: boolean }> }
  ).isConfigSupported;
  if (check && !(await check(encoderConfig)).supported) {
    throw new TypeError('this browser cannot encode Opus (WebCodecs)');
  }
  const encoder = new AudioEncoder({
    output: (chunk) => {
      const packet = new Uint8Array(chunk.byteLength);
      chunk.copyTo(packet);
      sinks.onPacket(packet);
    },
    error: sinks.onError,
  });
  encoder.configure(encoderConfig);
  let planar = new Float32Array((FRAME_US / 1000) * (RATE / 1000));
  const decoder = new AudioDecoder({
    output: (data) => {
      try {
        if (planar.length < data.numberOfFrames) planar = new Float32Array(data.numberOfFrames);
        const samples = planar.subarray(0, data.numberOfFrames);
        data.copyTo(samples, { planeIndex: 0, format: 'f32-planar' });
        const pcm = new Int16Array(samples.length);
        for (let i = 0; i < samples.length; i += 1) {
          const s = samples[i]!;
          pcm[i] = s >= 1 ? 32767 : s <= -1 ? -32768 : Math.round(s * 32767);
        }
        sinks.onPcm(pcm);
      } finally {
        data.close();
      }
    },
    error: sinks.onError,
  });
  decoder.configure({ codec: 'opus', sampleRate: RATE, numberOfChannels: 1 });
  let sentUs = 0;
  let heardUs = 0;
  const open = (codec: CodecLike) => codec.state === 'configured';
  return {
    encode(frame) {
      if (!open(encoder)) return;
      const data = new AudioData({
        format: 's16',
        sampleRate: RATE,
        numberOfFrames: frame.length,
        numberOfChannels: 1,
        timestamp: sentUs,
        data: frame,
      });
      sentUs += FRAME_US;
      try {
        encoder.encode(data);
      } finally {
        data.close();
      }
    },
    decode(packet) {
      if (!open(decoder)) return;
      decoder.decode(new EncodedAudioChunk({ type: 'key', timestamp: heardUs, data: packet }));
      heardUs += FRAME_US;
    },
    close() {
      for (const codec of [encoder, decoder]) if (codec.state !== 'closed') codec.close();
    },
  };
}
