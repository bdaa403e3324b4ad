import { createAsyncQueue } from '../../core/index.ts';
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
} from '../speech/types.ts';

// Providers that fail the way hosted ones do, for the failover tests: the speech seams' fakes
// (fake-speech.ts) wrapped so that a stream refuses at once, stalls (takes everything, answers
// nothing), or drops in the middle of its work.

export type STTBreak =
  /** Results throw at once (a refused connection). */
  | { kind: 'refuse' }
  /** Audio and flushes are taken, no result ever comes (a socket that never answers). */
  | { kind: 'stall' }
  /** Works until `afterFrames` frames were pushed, then its results throw (a dropped socket). */
  | { kind: 'drop'; afterFrames: number };

/** `inner` with a break; `opened` counts its streams. */
export function createBrokenSTT(
  inner: STT,
  broken: STTBreak,
  name = `broken-${inner.name}`,
): STT & { opened: number } {
  const stt = {
    name,
    partials: inner.partials,
    opened: 0,
    stream(options: STTOptions = {}): STTStream {
      stt.opened += 1;
      if (broken.kind === 'stall' || broken.kind === 'refuse') {
        const results = createAsyncQueue<STTResult>();
        if (broken.kind === 'refuse')
          results.fail(new SpeechError(`${name} refused the connection`, 'stt_failed', true));
        options.signal?.addEventListener('abort', () => results.close(), { once: true });
        return { results, push: () => undefined, flush: () => undefined, close: () => results.close() };
      }
      const real = inner.stream(options);
      const results = createAsyncQueue<STTResult>();
      let frames = 0;
      void (async () => {
        try {
          for await (const result of real.results) results.push(result);
          results.close();
        } catch (error) {
          results.fail(error);
        }
      })();
      return {
        results,
        push(frame) {
          frames += 1;
          if (frames > broken.afterFrames) {
            results.fail(new SpeechError(`${name} dropped its socket`, 'stt_failed', true));
            real.close();
            return;
          }
          real.push(frame);
        },
        flush: () => real.flush(),
        close() {
          real.close();
          results.close();
        },
      };
    },
  };
  return stt;
}

export type TTSBreak =
  /** Audio throws at once. */
  | { kind: 'refuse' }
  /** Text is taken, no audio ever comes. */
  | { kind: 'stall' }
  /** Works until `afterFrames` frames were produced, then its audio throws. */
  | { kind: 'drop'; afterFrames: number };

/** `inner` with a break; `voices` lists the voice option of each stream opened. */
export function createBrokenTTS(
  inner: TTS,
  broken: TTSBreak,
  name = `broken-${inner.name}`,
): TTS & { voices: (string | undefined)[] } {
  const tts = {
    name,
    sampleRate: inner.sampleRate,
    voices: [] as (string | undefined)[],
    stream(options: TTSOptions = {}): TTSStream {
      tts.voices.push(options.voice);
      if (broken.kind === 'stall' || broken.kind === 'refuse') {
        const audio = createAsyncQueue<SynthesizedAudio>();
        if (broken.kind === 'refuse')
          audio.fail(new SpeechError(`${name} refused the connection`, 'tts_failed', true));
        options.signal?.addEventListener('abort', () => audio.close(), { once: true });
        const none = () => undefined;
        return { audio, pushText: none, flush: none, endInput: none, close: () => audio.close() };
      }
      const real = inner.stream(options);
      const audio = createAsyncQueue<SynthesizedAudio>();
      let frames = 0;
      void (async () => {
        try {
          for await (const piece of real.audio) {
            frames += 1;
            if (frames > broken.afterFrames) {
              audio.fail(new SpeechError(`${name} dropped its socket`, 'tts_failed', true));
              real.close();
              return;
            }
            audio.push(piece);
          }
          audio.close();
        } catch (error) {
          audio.fail(error);
        }
      })();
      return {
        audio,
        pushText: (text) => real.pushText(text),
        flush: () => real.flush(),
        endInput: () => real.endInput(),
        close() {
          real.close();
          audio.close();
        },
      };
    },
  };
  return tts;
}
