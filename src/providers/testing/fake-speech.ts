import { createAsyncQueue, systemClock, type Clock } from '../../core/index.ts';
import { SESSION_RATE, samplesPerFrame, type AudioFrame } from '../../media/index.ts';
import {
  SpeechError,
  type STT,
  type STTOptions,
  type STTResult,
  type STTStream,
  type SynthesizedAudio,
  type TTS,
  type TTSOptions,
  type TTSStream,
  type VAD,
  type VADEvent,
  type VADOptions,
  type VADStream,
} from '../speech/types.ts';

// Fakes of the speech seams that talk to each other: the fake TTS writes text into audio as
// "data speech" and the fake STT reads it back exactly, so a simulated call runs the whole audio
// path (frames, playout, VAD, endpointing, barge-in) at no cost and with known words. The code
// survives what a telephone edge does to audio (G.711, resampling to 8 kHz and back): each 20 ms
// frame holds one flat level, read from the middle half of the frame; a start frame, then two
// frames per UTF-8 byte (high nibble, low nibble). Real recognizers hear it as noise.

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
  const from = samples.length >> 2;
  const to = samples.length - from;
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += samples[i] ?? 0;
  const mean = sum / (to - from);
  const symbol = Math.round((mean - LEVEL_BASE) / LEVEL_STEP);
  if (symbol < 0 || symbol > START_LEVEL) return -1;
  return Math.abs(mean - levelOf(symbol)) < LEVEL_STEP / 3 ? symbol : -1;
}

/** Decodes data speech frame by frame; `text` is what has been heard since the last `reset`. */
export function createDataSpeechReader() {
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

// ---- VAD: a loudness gate ---------------------------------------------------------------------

export interface FakeVADOptions {
  /** Mean absolute level above which a frame is speech (default 1000). */
  threshold?: number;
}

/** Speech is any frame louder than a threshold; the timing rules are the VAD contract's. */
export function createFakeVAD(fake: FakeVADOptions = {}): VAD {
  const threshold = fake.threshold ?? 1000;
  return {
    name: 'fake',
    stream(options: VADOptions = {}): VADStream {
      const minSpeechMs = options.minSpeechMs ?? 60;
      const minSilenceMs = options.minSilenceMs ?? 200;
      const events = createAsyncQueue<VADEvent>();
      let probability = 0;
      let speaking = false;
      let runStart = -1;
      let lastSpeechEnd = -1;
      let speechStart = -1;
      return {
        get probability() {
          return probability;
        },
        events,
        push(frame) {
          const { samples } = frame;
          let sum = 0;
          for (let i = 0; i < samples.length; i += 1) sum += Math.abs(samples[i] ?? 0);
          const loud = sum / Math.max(1, samples.length) > threshold;
          probability = loud ? 1 : 0;
          const end = frame.at + (samples.length * 1000) / frame.sampleRate;
          if (loud) {
            if (runStart < 0) runStart = frame.at;
            lastSpeechEnd = end;
            if (!speaking && end - runStart >= minSpeechMs) {
              speaking = true;
              speechStart = runStart;
              events.push({ kind: 'speech_start', at: runStart });
            }
          } else {
            if (!speaking) runStart = -1;
            else if (end - lastSpeechEnd >= minSilenceMs) {
              speaking = false;
              runStart = -1;
              events.push({ kind: 'speech_end', at: lastSpeechEnd, speechMs: lastSpeechEnd - speechStart });
            }
          }
        },
        close() {
          events.close();
        },
      };
    },
  };
}

// ---- STT: reads data speech ---------------------------------------------------------------------

export interface FakeSTTOptions {
  clock?: Clock;
  /** Delay of each final result in ms of `clock` (default 0). */
  latencyMs?: number;
  /** Send a partial result at each completed word (default true). */
  partials?: boolean;
}

/** Recognizes data speech exactly; partial results at each word, a final one at each flush. */
export function createFakeSTT(fake: FakeSTTOptions = {}): STT {
  const clock = fake.clock ?? systemClock;
  const latencyMs = fake.latencyMs ?? 0;
  const partials = fake.partials ?? true;
  return {
    name: 'fake',
    partials,
    stream(options: STTOptions = {}): STTStream {
      const results = createAsyncQueue<STTResult>();
      const reader = createDataSpeechReader();
      let lastPartial = '';
      let heardAudio = false;
      const close = () => results.close();
      options.signal?.addEventListener('abort', close, { once: true });
      return {
        results,
        push(frame) {
          if (results.closed) return;
          heardAudio = true;
          reader.push(frame);
          if (!partials) return;
          const text = reader.text;
          const words = text.lastIndexOf(' ') > 0 ? text.slice(0, text.lastIndexOf(' ')) : '';
          if (words && words !== lastPartial) {
            lastPartial = words;
            results.push({ kind: 'partial', text: words, at: clock.now() });
          }
        },
        flush() {
          if (results.closed || !heardAudio) return;
          const text = reader.text;
          reader.reset();
          lastPartial = '';
          heardAudio = false;
          const emit = () => results.push({ kind: 'final', text, at: clock.now() });
          if (latencyMs <= 0) emit();
          else clock.sleep(latencyMs, options.signal).then(emit, () => undefined);
        },
        close() {
          options.signal?.removeEventListener('abort', close);
          close();
        },
      };
    },
  };
}

// ---- TTS: writes data speech --------------------------------------------------------------------

export interface FakeTTSOptions {
  clock?: Clock;
  /** Delay before each segment's first frame, in ms of `clock` (default 0). */
  latencyMs?: number;
  /** Segments whose text includes this fail the stream (for failure tests). */
  failOn?: string;
}

/** Speaks text as data speech, one segment per flush, after an optional latency per segment. */
export function createFakeTTS(fake: FakeTTSOptions = {}): TTS {
  const clock = fake.clock ?? systemClock;
  const latencyMs = fake.latencyMs ?? 0;
  return {
    name: 'fake',
    sampleRate: SESSION_RATE,
    stream(options: TTSOptions = {}): TTSStream {
      const audio = createAsyncQueue<SynthesizedAudio>();
      const pending: string[] = [];
      let current = '';
      let segment = 0;
      let inputEnded = false;
      let running = false;
      const stop = () => audio.close();
      options.signal?.addEventListener('abort', stop, { once: true });

      async function run() {
        if (running) return;
        running = true;
        try {
          for (let text = pending.shift(); text !== undefined; text = pending.shift()) {
            if (audio.closed) return;
            if (fake.failOn && text.includes(fake.failOn)) {
              audio.fail(new SpeechError('the fake TTS was told to fail', 'tts_failed', false));
              return;
            }
            if (latencyMs > 0) await clock.sleep(latencyMs, options.signal);
            const frames = dataSpeechFrames(text, clock.now());
            frames.forEach((frame, i) =>
              audio.push({
                frame,
                segment,
                ...(i === 0 ? { text } : {}),
                ...(i === frames.length - 1 ? { last: true } : {}),
              }),
            );
            segment += 1;
          }
          if (inputEnded) audio.close();
        } catch {
          audio.close();
        } finally {
          running = false;
        }
      }

      return {
        audio,
        pushText(text) {
          current += text;
        },
        flush() {
          const text = current.trim();
          current = '';
          if (text) pending.push(text);
          void run();
        },
        endInput() {
          inputEnded = true;
          const text = current.trim();
          current = '';
          if (text) pending.push(text);
          void run();
        },
        close() {
          options.signal?.removeEventListener('abort', stop);
          stop();
        },
      };
    },
  };
}
