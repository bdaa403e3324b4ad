import { SESSION_RATE, samplesPerFrame, type AudioFrame } from '../../media/index.ts';
import type { STT, TTS, VAD } from './types.ts';

// A mouth and ears for a simulated person (the far end of sim calls, simulated callers): its
// words go through a TTS into frames, and what it hears goes through a VAD and an STT back into
// lines. With the offline defaults the two sides of a sim call really speak and hear; with the
// fakes they do so exactly and at no cost.

export interface SimulatedVoiceOptions {
  tts: TTS;
  stt: STT;
  vad: VAD;
  /** TTS voice of the simulated person. */
  voice?: string;
  /** Silence that ends a line heard (default 700 ms: longer than the pause between sentences). */
  endOfLineMs?: number;
}

export interface SimulatedVoice {
  speak(text: string, signal: AbortSignal): AsyncIterable<AudioFrame>;
  listen(heard: (text: string) => void, signal: AbortSignal): { push(frame: AudioFrame): void };
}

const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);

export function createSimulatedVoice(options: SimulatedVoiceOptions): SimulatedVoice {
  const { tts, stt, vad } = options;
  if (tts.sampleRate !== SESSION_RATE) {
    throw new RangeError(`a simulated voice needs a TTS at ${SESSION_RATE} Hz, got ${tts.sampleRate}`);
  }
  return {
    async *speak(text, signal) {
      const stream = tts.stream({ ...(options.voice ? { voice: options.voice } : {}), signal });
      stream.pushText(text);
      stream.endInput();
      try {
        for await (const { frame } of stream.audio) {
          if (frame.samples.length === FRAME_SAMPLES) yield frame;
          else {
            const samples = new Int16Array(FRAME_SAMPLES);
            samples.set(frame.samples.subarray(0, FRAME_SAMPLES));
            yield { samples, sampleRate: SESSION_RATE, at: frame.at };
          }
        }
      } finally {
        stream.close();
      }
    },

    listen(heard, signal) {
      const speech = vad.stream({ minSilenceMs: options.endOfLineMs ?? 700 });
      const words = stt.stream({ signal });
      signal.addEventListener(
        'abort',
        () => {
          speech.close();
          words.close();
        },
        { once: true },
      );
      void (async () => {
        for await (const event of speech.events) if (event.kind === 'speech_end') words.flush();
      })().catch(() => undefined);
      void (async () => {
        for await (const result of words.results) {
          const text = result.text.trim();
          if (result.kind === 'final' && text !== '' && !signal.aborted) heard(text);
        }
      })().catch(() => undefined);
      return {
        push(frame) {
          if (signal.aborted) return;
          speech.push(frame);
          words.push(frame);
        },
      };
    },
  };
}
