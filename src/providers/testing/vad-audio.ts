import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataSpeechFrames, type AudioFrame, type SampleRate } from '../../media/index.ts';

// Test audio with known speech regions, for the VAD contract, the VAD tests and bench/vad.ts:
// flite (kal16) sentences cut to their speech, the fakes' data speech, digital silence, and sox
// noise mixed in at a chosen SNR. Uses the flite and sox CLIs (tests and benchmarks only).

const RATE = 16000;
const FRAME_MS = 20;
/** Frames start here, not at 0, so code that assumes a clock starting at 0 fails. */
export const AUDIO_AT0 = 10_000;
/** A sample louder than this is speech, for finding the true boundaries of a flite sentence. */
const SPEECH_SAMPLE_LEVEL = 500;
/** Audio kept around a sentence's true boundaries when it is cut out of flite's output. */
const MARGIN_MS = 40;
const RAW = ['-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1'];

export interface Clip {
  /** 16 kHz samples. */
  samples: Int16Array;
  /** Where the speech really is inside the clip, in ms; `to <= from` for a clip of no speech. */
  from: number;
  to: number;
}

/** Milliseconds of digital silence, or a clip. */
export type Piece = number | Clip;

export interface Scene {
  /** The scene at 16 kHz and at 8 kHz. */
  audio: Record<8000 | 16000, Int16Array>;
  /** The true speech regions, in ms on the frames' clock (from AUDIO_AT0). */
  speech: { from: number; to: number }[];
}

export const ms = (samples: number, rate = RATE): number => (samples * 1000) / rate;

/** A fresh temp dir for audio files; the caller removes it. */
export function testAudioDir(): string {
  return mkdtempSync(join(tmpdir(), 'parley-vad-audio-'));
}

export function readRaw(path: string): Int16Array {
  const bytes = readFileSync(path);
  const out = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i += 1) out[i] = bytes.readInt16LE(i * 2);
  return out;
}

export function writeRaw(path: string, samples: Int16Array): void {
  writeFileSync(path, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
}

/** A mono 16-bit PCM WAV file's bytes (little-endian samples, as the format has them). */
export function monoWav(samples: Int16Array, sampleRate = 16000): Buffer {
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A flite sentence at 16 kHz, cut to its speech plus a small margin. */
export function fliteClip(dir: string, text: string, name: string): Clip {
  const wav = join(dir, `${name}.wav`);
  execFileSync('flite', ['-voice', 'kal16', '-t', text, '-o', wav]);
  return cutToSpeech(dir, wav, name, text);
}

/**
 * An espeak-ng (en-us) sentence at 16 kHz, cut to its speech plus a small margin. Unlike flite,
 * espeak-ng lets the pitch fall at the end of a statement and holds it level where a sentence
 * goes on. With `pause`, the sentence is said with a pause after its first `pause.afterWords`
 * words (one intonation throughout: an SSML break), made exactly `pause.ms` long between the
 * audible parts.
 */
export function espeakClip(
  dir: string,
  text: string,
  name: string,
  pause?: { afterWords: number; ms: number },
): Clip {
  const wav = join(dir, `${name}.wav`);
  const words = text.split(/\s+/);
  const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const said = pause
    ? `<speak>${escape(words.slice(0, pause.afterWords).join(' '))} <break time="${pause.ms}ms"/> ${escape(words.slice(pause.afterWords).join(' '))}</speak>`
    : `<speak>${escape(text)}</speak>`;
  execFileSync('espeak-ng', ['-v', 'en-us', '-m', '-w', wav, said]);
  const clip = cutToSpeech(dir, wav, name, text);
  return pause ? withGap(clip, pause.ms) : clip;
}

/** `clip` with its longest silence inside the speech made exactly `gapMs` long. */
function withGap(clip: Clip, gapMs: number): Clip {
  const { samples } = clip;
  const first = Math.round((clip.from * RATE) / 1000);
  const last = Math.round((clip.to * RATE) / 1000);
  let best = { at: 0, length: 0 };
  let runAt = -1;
  for (let i = first; i < last; i += 1) {
    if (Math.abs(samples[i]!) > SPEECH_SAMPLE_LEVEL) {
      if (runAt >= 0 && i - runAt > best.length) best = { at: runAt, length: i - runAt };
      runAt = -1;
    } else if (runAt < 0) runAt = i;
  }
  if (best.length === 0) throw new Error('espeak-ng made no pause inside the sentence');
  const gap = (gapMs * RATE) / 1000;
  const out = new Int16Array(samples.length - best.length + gap);
  out.set(samples.subarray(0, best.at));
  out.set(samples.subarray(best.at + best.length), best.at + gap);
  return { samples: out, from: clip.from, to: clip.to + ms(gap - best.length) };
}

function cutToSpeech(dir: string, wav: string, name: string, text: string): Clip {
  const raw = join(dir, `${name}.raw`);
  execFileSync('sox', [wav, ...RAW, '-r', String(RATE), raw]);
  const all = readRaw(raw);
  let first = all.findIndex((s) => Math.abs(s) > SPEECH_SAMPLE_LEVEL);
  let last = all.length - 1;
  while (last > 0 && Math.abs(all[last]!) <= SPEECH_SAMPLE_LEVEL) last -= 1;
  if (first < 0) throw new Error(`no audible speech was made for "${text}"`);
  const margin = (MARGIN_MS * RATE) / 1000;
  const from = Math.max(0, first - margin);
  const to = Math.min(all.length, last + 1 + margin);
  first -= from;
  last -= from;
  return { samples: all.slice(from, to), from: ms(first), to: ms(last + 1) };
}

/** The fakes' data speech for `text`, as one clip that is speech from end to end. */
export function dataClip(text: string): Clip {
  const frames = dataSpeechFrames(text);
  const samples = new Int16Array(frames.reduce((n, f) => n + f.samples.length, 0));
  let offset = 0;
  for (const f of frames) {
    samples.set(f.samples, offset);
    offset += f.samples.length;
  }
  return { samples, from: 0, to: ms(samples.length) };
}

/** Pieces laid end to end, at 16 kHz and (resampled by sox) at 8 kHz. */
export function composeScene(dir: string, name: string, pieces: Piece[]): Scene {
  const total = pieces.reduce<number>(
    (n, p) => n + (typeof p === 'number' ? (p * RATE) / 1000 : p.samples.length),
    0,
  );
  const audio = new Int16Array(total);
  const speech: Scene['speech'] = [];
  let offset = 0;
  for (const p of pieces) {
    if (typeof p === 'number') {
      offset += (p * RATE) / 1000;
      continue;
    }
    audio.set(p.samples, offset);
    if (p.to > p.from)
      speech.push({ from: AUDIO_AT0 + ms(offset) + p.from, to: AUDIO_AT0 + ms(offset) + p.to });
    offset += p.samples.length;
  }
  return { audio: { 16000: audio, 8000: resampleWithSox(dir, name, audio, 8000) }, speech };
}

/** `samples` (16 kHz) at `rate`, resampled by sox. */
export function resampleWithSox(dir: string, name: string, samples: Int16Array, rate: number): Int16Array {
  const from = join(dir, `${name}-16k.raw`);
  const to = join(dir, `${name}-${rate}.raw`);
  writeRaw(from, samples);
  execFileSync('sox', [...RAW, '-r', String(RATE), from, ...RAW, '-r', String(rate), to]);
  return readRaw(to);
}

/** `seconds` of sox noise (`white`, `pink`, `brown`) at 16 kHz, the same on every run (`-R`). */
export function soxNoise(dir: string, kind: 'white' | 'pink' | 'brown', seconds: number): Int16Array {
  const path = join(dir, `noise-${kind}-${seconds}.raw`);
  execFileSync('sox', [
    '-R',
    '-n',
    ...RAW,
    '-r',
    String(RATE),
    path,
    'synth',
    String(seconds),
    `${kind}noise`,
    'vol',
    '0.5',
  ]);
  return readRaw(path);
}

/** A clip of no speech: `seconds` of a sox `synth` sound (e.g. `['sine', '1000']`) at `dbfs` RMS. */
export function soxSound(dir: string, name: string, seconds: number, synth: string[], dbfs: number): Clip {
  const path = join(dir, `${name}.raw`);
  execFileSync('sox', ['-R', '-n', ...RAW, '-r', String(RATE), path, 'synth', String(seconds), ...synth]);
  const raw = readRaw(path);
  const gain = Math.sqrt((32768 ** 2 * 10 ** (dbfs / 10)) / Math.max(1, powerOf(raw)));
  return {
    samples: Int16Array.from(raw, (s) => Math.max(-32768, Math.min(32767, Math.round(s * gain)))),
    from: 0,
    to: 0,
  };
}

/** Power (mean square) of `samples` over the given regions (ms from AUDIO_AT0), or all of it. */
export function powerOf(samples: Int16Array, regions?: Scene['speech']): number {
  let sum = 0;
  let n = 0;
  const ranges = regions?.map((r) => [
    ((r.from - AUDIO_AT0) * RATE) / 1000,
    ((r.to - AUDIO_AT0) * RATE) / 1000,
  ]) ?? [[0, samples.length]];
  for (const [from, to] of ranges) {
    for (let i = Math.floor(from!); i < Math.min(samples.length, to!); i += 1) {
      sum += samples[i]! ** 2;
      n += 1;
    }
  }
  return n === 0 ? 0 : sum / n;
}

/** The scene's 16 kHz audio plus `noise` (looped) scaled so speech stands `snrDb` above it. */
export function mixAtSnr(scene: Scene, noise: Int16Array, snrDb: number): Int16Array {
  const speechPower = powerOf(scene.audio[16000], scene.speech);
  const gain = Math.sqrt(speechPower / (powerOf(noise) * 10 ** (snrDb / 10)));
  const out = new Int16Array(scene.audio[16000].length);
  for (let i = 0; i < out.length; i += 1) {
    const v = scene.audio[16000][i]! + gain * noise[i % noise.length]!;
    out[i] = Math.max(-32768, Math.min(32767, Math.round(v)));
  }
  return out;
}

/** 20 ms frames of `samples` (a shorter last frame if it does not divide), times from `at0`. */
export function framesOf(samples: Int16Array, sampleRate: SampleRate, at0 = AUDIO_AT0): AudioFrame[] {
  const size = (sampleRate * FRAME_MS) / 1000;
  const frames: AudioFrame[] = [];
  for (let i = 0; i < samples.length; i += size) {
    frames.push({ samples: samples.slice(i, i + size), sampleRate, at: at0 + ms(i, sampleRate) });
  }
  return frames;
}
