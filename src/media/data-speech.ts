import { SESSION_RATE, samplesPerFrame, type AudioFrame } from './frame.ts';

// "Data speech": text written into audio so that fakes (a fake TTS and STT, a scripted far end)
// talk through the whole audio path and read each other's words back exactly. It survives what
// a telephone edge does to audio (G.711, resampling to 8 kHz and back, twice across a bridge): each
// 20 ms frame holds one flat level, read from the frame's last third (resampling filters delay
// audio, so a frame starts with the end of the one before); a start frame, then two frames per
// UTF-8 byte (high nibble, low nibble). Real recognizers hear it as noise.

const START_LEVEL = 16;
const LEVEL_BASE = 3000;
const LEVEL_STEP = 1400;
const levelOf = (symbol: number) => LEVEL_BASE + symbol * LEVEL_STEP;

/** The frames that carry `text` as data speech, at SESSION_RATE, times from `at`. */
export function dataSpeechFrames(text: string, at = 0): AudioFrame[] {
  const bytes = new TextEncoder().encode(text);
  const symbols = [START_LEVEL];
  for (const byte of bytes) symbols.push(byte >> 4, byte & 15);
  const n = samplesPerFrame(SESSION_RATE);
  return symbols.map((symbol, i) => ({
    samples: new Int16Array(n).fill(levelOf(symbol)),
    sampleRate: SESSION_RATE,
    at: at + i * 20,
  }));
}

/** Reads one frame's symbol: 0-15, START_LEVEL, or -1 for silence or anything else. */
function symbolOf(frame: AudioFrame): number {
  const { samples } = frame;
  const to = samples.length;
  const from = to - Math.floor(to / 3);
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += samples[i] ?? 0;
  const mean = sum / (to - from);
  const symbol = Math.round((mean - LEVEL_BASE) / LEVEL_STEP);
  if (symbol < 0 || symbol > START_LEVEL) return -1;
  return Math.abs(mean - levelOf(symbol)) < LEVEL_STEP / 3 ? symbol : -1;
}

/** Decodes data speech frame by frame; `text` is what has been heard since the last `reset`. */
export interface DataSpeechReader {
  push(frame: AudioFrame): void;
  readonly text: string;
  reset(): void;
}

export function createDataSpeechReader(): DataSpeechReader {
  let bytes: number[] = [];
  let high = -1;
  let started = false;
  const decoder = new TextDecoder();
  return {
    push(frame: AudioFrame): void {
      const symbol = symbolOf(frame);
      if (symbol === START_LEVEL) {
        // A new utterance (or the next one of the same turn): words are separated by a space.
        if (bytes.length > 0 && bytes[bytes.length - 1] !== 32) bytes.push(32);
        started = true;
        high = -1;
        return;
      }
      if (!started || symbol < 0) return;
      if (high < 0) high = symbol;
      else {
        bytes.push((high << 4) | symbol);
        high = -1;
      }
    },
    get text(): string {
      return decoder.decode(new Uint8Array(bytes)).trim();
    },
    reset(): void {
      bytes = [];
      high = -1;
      started = false;
    },
  };
}
