import { createAsyncQueue, systemClock, type Clock } from '../../core/index.ts';
import { SESSION_RATE, createDataSpeechReader, dataSpeechFrames } from '../../media/index.ts';
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

// Fakes of the speech seams that talk to each other: the fake TTS writes text into audio as data
// speech (src/media/data-speech.ts) and the fake STT reads it back exactly, so a simulated call
// runs the whole audio path (frames, playout, VAD, endpointing, barge-in) at no cost and with
// known words.

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
  /**
   * Like Deepgram's endpointing: after this much silence following speech, a partial marked
   * `endOfUtterance` (default: never).
   */
  endpointingMs?: number;
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
      let quietMs = 0;
      let spoke = false;
      const close = () => results.close();
      if (options.signal?.aborted) close();
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
          if (fake.endpointingMs !== undefined) {
            const loud = frame.samples.some((v) => Math.abs(v) > 1000);
            quietMs = loud ? 0 : quietMs + (frame.samples.length * 1000) / frame.sampleRate;
            if (loud) spoke = true;
            if (spoke && quietMs >= fake.endpointingMs && reader.text.trim()) {
              spoke = false;
              results.push({
                kind: 'partial',
                text: reader.text.trim(),
                at: clock.now(),
                endOfUtterance: true,
              });
              lastPartial = words;
            }
          }
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

// The codec itself is pure audio and lives in media; re-exported for the tests that fake speech.
export { createDataSpeechReader, dataSpeechFrames } from '../../media/index.ts';
