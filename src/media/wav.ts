// WAV files of 16-bit PCM: recordings, voice previews, uploads to transcription servers.

const HEADER_BYTES = 44;

/** The 44-byte header of a 16-bit PCM WAV of `channels` at `sampleRate` with `dataBytes` of samples. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Uint8Array {
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i += 1) header[at + i] = text.charCodeAt(i);
  };
  const block = 2 * channels;
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * block, true);
  view.setUint16(32, block, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return header;
}

/** A whole mono WAV file of `samples` (16-bit little-endian, as WAV stores them). */
export function monoWav(samples: Int16Array, sampleRate: number): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) data.writeInt16LE(samples[i] ?? 0, i * 2);
  return Buffer.concat([wavHeader(sampleRate, 1, data.length), data]);
}
