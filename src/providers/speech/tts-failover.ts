// A TTS made of several, in order of preference, each with its own voice: a call speaks through
// the first until it fails (its audio throws or ends early, or text waits `audioTimeoutMs` for
// audio); then the next one takes over for the rest of the call: this stream and the wrapper's
// later ones (a call's wrapper is its own, src/speech). Nothing said is lost: the
// replacement gets the text of every segment not yet fully played out, from the one in progress
// on. The segment in progress starts again from its beginning (its frames so far were already
// played), under the same segment number, so the voice session's bookkeeping of what was said
// holds. The caller's silence is at most `audioTimeoutMs` plus the replacement's first audio.
import { createAsyncQueue, type Clock } from '../../core/index.ts';
import type { SampleRate } from '../../media/index.ts';
import { reasonOf, type SpeechSwitch } from './speech-switch.ts';
import { SpeechError, type SynthesizedAudio, type TTS, type TTSOptions, type TTSStream } from './types.ts';

export interface FailoverTTSEntry {
  tts: TTS;
  /** The voice this provider speaks with; absent: the stream's own `voice` option. */
  voice?: string;
}

export interface FailoverTTSOptions {
  /** The providers in order of preference; the last is the last resort. At least one. */
  chain: readonly FailoverTTSEntry[];
  clock: Clock;
  /** Text waiting this long with no audio from the provider drops it (default 1500 ms). */
  audioTimeoutMs?: number;
  /** Told each time a provider is dropped. */
  onSwitch?: (change: SpeechSwitch) => void;
  /** Options every stream gets unless it sets them (the call's rate, the agent's tuning). */
  defaults?: Omit<TTSOptions, 'signal' | 'voice'>;
}

export const DEFAULT_TTS_AUDIO_TIMEOUT_MS = 1500;

export function createFailoverTTS(options: FailoverTTSOptions): TTS {
  const { chain, clock } = options;
  const first = chain[0];
  if (!first) throw new Error('createFailoverTTS needs at least one TTS');
  const audioTimeoutMs = options.audioTimeoutMs ?? DEFAULT_TTS_AUDIO_TIMEOUT_MS;
  /** Where new streams start: providers dropped by earlier streams are not tried again. */
  let active = 0;
  return {
    name: chain.map((e) => e.tts.name).join('>'),
    sampleRate: first.tts.sampleRate as SampleRate,
    stream(streamOptions: TTSOptions = {}): TTSStream {
      const audio = createAsyncQueue<SynthesizedAudio>();
      const outer = streamOptions.signal;
      /** The text of every flushed segment, by its number. */
      const segments: string[] = [];
      let current = '';
      let inputEnded = false;
      /** Segments whose last frame went out. */
      let done = 0;
      /** Whether the segment `done` (the one in progress) has sent its first frame. */
      let started = false;
      /** The outer number of the current provider's segment 0. */
      let base = 0;
      let index = active;
      let generation = 0;
      let inner: TTSStream | null = null;
      let innerAbort: AbortController | null = null;
      let timer: AbortController | null = null;
      /** The segment the replacement says again, and how far its frames' times are moved. */
      let restarted = -1;
      let shift: number | null = null;
      /** When the last frame out ends (ms). */
      let lastEnd = -Infinity;

      const waiting = () => done < segments.length;
      const stopTimer = () => {
        timer?.abort();
        timer = null;
      };
      /** (Re)starts the wait for audio while text is waiting for it. */
      const armTimer = () => {
        stopTimer();
        // The last resort has no one to hand over to: its user's own bound applies.
        if (!waiting() || index >= chain.length - 1) return;
        const mine = new AbortController();
        timer = mine;
        const at = generation;
        clock.sleep(audioTimeoutMs, mine.signal).then(
          () => {
            if (timer === mine && at === generation)
              replace(
                new SpeechError(`no audio within ${audioTimeoutMs} ms of the text`, 'tts_failed', true),
              );
          },
          () => undefined,
        );
      };

      function closeInner() {
        generation += 1;
        stopTimer();
        innerAbort?.abort();
        inner?.close();
        inner = null;
      }

      const shut = () => {
        closeInner();
        audio.close();
      };

      function open(): TTSStream | null {
        const entry = chain[index];
        if (!entry) return null;
        const mine = generation;
        innerAbort = new AbortController();
        const voice = entry.voice ?? streamOptions.voice;
        const stream = entry.tts.stream({
          ...options.defaults,
          ...streamOptions,
          ...(voice !== undefined ? { voice } : {}),
          signal: innerAbort.signal,
        });
        inner = stream;
        void (async () => {
          try {
            for await (const piece of stream.audio) {
              if (mine !== generation) return;
              forward(piece);
            }
            if (mine !== generation) return;
            if (done < segments.length)
              replace(new SpeechError(`${entry.tts.name} ended its audio early`, 'tts_failed', true));
            else if (inputEnded) shut();
          } catch (error) {
            if (mine === generation) replace(error);
          }
        })();
        return stream;
      }

      function forward(piece: SynthesizedAudio) {
        const segment = base + piece.segment;
        if (segment !== done) return;
        let frame = piece.frame;
        // A restarted segment's frames go on from where its first frames ended, in time order.
        if (segment === restarted) {
          shift ??= Math.max(0, lastEnd - frame.at);
          if (shift > 0) frame = { ...frame, at: frame.at + shift };
        }
        lastEnd = frame.at + (frame.samples.length * 1000) / frame.sampleRate;
        const out: SynthesizedAudio = { frame, segment };
        if (!started) {
          started = true;
          const text = segments[segment];
          if (text !== undefined) out.text = text;
        }
        if (piece.last) {
          out.last = true;
          done += 1;
          started = false;
        }
        audio.push(out);
        armTimer();
      }

      function replace(error: unknown) {
        if (audio.closed) return;
        const dropped = chain[index];
        closeInner();
        index += 1;
        // Dropped for the rest of the call: the wrapper's later streams start with the replacement.
        active = Math.max(active, index);
        const next = chain[index];
        if (!dropped || !next) {
          audio.fail(
            error instanceof SpeechError
              ? error
              : new SpeechError(`speech synthesis failed: ${reasonOf(error)}`, 'tts_failed', true, error),
          );
          return;
        }
        options.onSwitch?.({
          kind: 'tts',
          from: dropped.tts.name,
          to: next.tts.name,
          reason: reasonOf(error),
          at: clock.now(),
        });
        base = done;
        restarted = started ? done : -1;
        shift = null;
        const replacement = open();
        for (const text of segments.slice(done)) {
          replacement?.pushText(text);
          replacement?.flush();
        }
        if (current) replacement?.pushText(current);
        if (inputEnded) replacement?.endInput();
        armTimer();
      }

      if (outer?.aborted) {
        audio.close();
        return {
          audio,
          pushText: () => undefined,
          flush: () => undefined,
          endInput: () => undefined,
          close: () => undefined,
        };
      }
      outer?.addEventListener('abort', shut, { once: true });
      open();

      return {
        audio,
        pushText(text) {
          if (audio.closed || inputEnded) return;
          current += text;
          inner?.pushText(text);
        },
        flush() {
          if (audio.closed || inputEnded) return;
          const text = current.trim();
          current = '';
          inner?.flush();
          if (!text) return;
          segments.push(text);
          if (!timer) armTimer();
        },
        endInput() {
          if (audio.closed || inputEnded) return;
          inputEnded = true;
          const text = current.trim();
          current = '';
          if (text) segments.push(text);
          inner?.endInput();
          if (!timer) armTimer();
        },
        close() {
          outer?.removeEventListener('abort', shut);
          shut();
        },
      };
    },
  };
}
