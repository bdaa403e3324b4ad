// One synchronous flite run: text in, 16-bit PCM out. It blocks its thread for the whole
// synthesis (a fresh wasm instance each time, see below), so the TTS runs it in a worker thread;
// the bench also calls it on the main thread to measure that block.
import { runWasiCommand } from './tts-flite-wasi.ts';
import type { WasmModule } from './tts-flite-wasm.ts';

export interface FliteRequest {
  /** flite's voice name (`-voice`). */
  voice: string;
  text: string;
  /** flite's duration_stretch: 1 normal, 0.5 twice as fast. */
  durationStretch: number;
  /** Drop the silence flite puts before the first word (100-450 ms), so audio starts early. */
  trimLeadingSilence: boolean;
}

export interface FliteAudio {
  samples: Int16Array;
  sampleRate: number;
}

/**
 * Synthesizes `request.text` at the voice's own rate. A fresh instance per run: flite's
 * `main` leaves global state behind (a second `_start` on the same instance traps with
 * "memory access out of bounds"), and instantiating costs about 10 ms (17 MB of data segments).
 */
export function synthesizeFlite(module: WasmModule, request: FliteRequest): FliteAudio {
  const args = [
    'flite',
    '-voice',
    request.voice,
    '--setf',
    `duration_stretch=${request.durationStretch}`,
    '-t',
    request.text,
    '-o',
    '/out.wav',
  ];
  const run = runWasiCommand(module, args);
  const wav = run.files.get('out.wav');
  if (run.exitCode !== 0 || !wav) {
    const detail = run.stderr.trim().split('\n')[0] ?? '';
    throw new Error(`flite exited with code ${run.exitCode}${detail ? `: ${detail}` : ''}`);
  }
  const audio = parseWav(wav);
  if (!request.trimLeadingSilence) return audio;
  const start = speechOnset(audio.samples, audio.sampleRate);
  return { samples: audio.samples.subarray(start), sampleRate: audio.sampleRate };
}

/** The PCM of a mono 16-bit RIFF/WAVE file (flite's output), copied into its own buffer. */
export function parseWav(bytes: Uint8Array): FliteAudio {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a WAVE file');
  let sampleRate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(at);
    const size = dv.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      const format = dv.getUint16(body, true);
      const channels = dv.getUint16(body + 2, true);
      const bits = dv.getUint16(body + 14, true);
      if (format !== 1 || channels !== 1 || bits !== 16) {
        throw new Error(`unsupported WAVE format ${format}, ${channels} channels, ${bits} bits`);
      }
      sampleRate = dv.getUint32(body + 4, true);
    } else if (id === 'data') {
      if (!sampleRate) throw new Error('WAVE data before its format');
      const end = Math.min(bytes.length, body + size);
      const samples = new Int16Array((end - body) >> 1);
      for (let i = 0; i < samples.length; i += 1) samples[i] = dv.getInt16(body + i * 2, true);
      return { samples, sampleRate };
    }
    at = body + size + (size & 1);
  }
  throw new Error('WAVE file without data');
}

const ONSET_LEVEL = 256; // about -42 dBFS: above flite's leading noise floor (at most ~160)
const ONSET_WINDOW_MS = 5;
const PREROLL_MS = 40; // keeps weak onsets (fricatives) that start below the level

/** Where speech starts: the first 5 ms window louder than the onset level, less a pre-roll. */
export function speechOnset(samples: Int16Array, sampleRate: number): number {
  const window = Math.max(1, Math.round((sampleRate * ONSET_WINDOW_MS) / 1000));
  for (let from = 0; from < samples.length; from += window) {
    const to = Math.min(samples.length, from + window);
    for (let i = from; i < to; i += 1) {
      const s = samples[i] ?? 0;
      if (s > ONSET_LEVEL || s < -ONSET_LEVEL) {
        return Math.max(0, from - Math.round((sampleRate * PREROLL_MS) / 1000));
      }
    }
  }
  // Never louder than the level: a pause (e.g. "..."); keep it whole.
  return 0;
}
