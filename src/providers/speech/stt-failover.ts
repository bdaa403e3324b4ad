// An STT made of several, in order of preference: a call hears through the first until it
// fails (its results throw or end early, or a flush gets no final within `finalTimeoutMs`); then
// the next one takes over for the rest of the call: this stream and the wrapper's later ones. The audio of the utterance in progress is
// not lost: every frame and flush since the last answered flush is kept and replayed into the
// replacement, so it answers the same flushes in the same order. From a failure to the
// replacement's final, the wait is at most the bound that detected it plus the replacement's own
// time to answer (docs/speech-providers.md).
import { createAsyncQueue, type Clock } from '../../core/index.ts';
import type { AudioFrame, SampleRate } from '../../media/index.ts';
import { reasonOf, type SpeechSwitch } from './speech-switch.ts';
import { SpeechError, type STT, type STTOptions, type STTResult, type STTStream } from './types.ts';

export interface FailoverSTTOptions {
  /** The providers in order of preference; the last is the last resort. At least one. */
  chain: readonly STT[];
  clock: Clock;
  /** From a flush to its final, at most, before the provider is dropped (default 1500 ms). */
  finalTimeoutMs?: number;
  /** Audio kept for a replay, at most (default 30 000 ms); older audio is dropped first. */
  maxReplayMs?: number;
  /** Told each time a provider is dropped. */
  onSwitch?: (change: SpeechSwitch) => void;
  /** Options every stream gets unless it sets them (the call's leg rate, say). */
  defaults?: Omit<STTOptions, 'signal'>;
}

export const DEFAULT_STT_FINAL_TIMEOUT_MS = 1500;

type Entry = { frame: AudioFrame } | { flush: true };

export function createFailoverSTT(options: FailoverSTTOptions): STT {
  const { chain, clock } = options;
  const first = chain[0];
  if (!first) throw new Error('createFailoverSTT needs at least one STT');
  const finalTimeoutMs = options.finalTimeoutMs ?? DEFAULT_STT_FINAL_TIMEOUT_MS;
  const maxReplayMs = options.maxReplayMs ?? 30_000;
  /** Where new streams start: providers dropped by earlier streams are not tried again. */
  let active = 0;
  return {
    name: chain.map((s) => s.name).join('>'),
    partials: first.partials,
    stream(streamOptions: STTOptions = {}): STTStream {
      const results = createAsyncQueue<STTResult>();
      const outer = streamOptions.signal;
      /** What a replacement must hear: frames and flushes since the last answered flush. */
      let log: Entry[] = [];
      let loggedMs = 0;
      let pending = 0;
      let audioSinceFlush = false;
      let index = active;
      let generation = 0;
      let inner: STTStream | null = null;
      let innerAbort: AbortController | null = null;
      let timer: AbortController | null = null;

      const stopTimer = () => {
        timer?.abort();
        timer = null;
      };
      const armTimer = () => {
        stopTimer();
        // The last resort has no one to hand over to: its user's own bound applies.
        if (pending === 0 || index >= chain.length - 1) return;
        const mine = new AbortController();
        timer = mine;
        const at = generation;
        clock.sleep(finalTimeoutMs, mine.signal).then(
          () => {
            if (timer === mine && at === generation)
              replace(
                new SpeechError(
                  `no final result within ${finalTimeoutMs} ms of the end of speech`,
                  'stt_failed',
                  true,
                ),
              );
          },
          () => undefined,
        );
      };

      const shut = () => {
        generation += 1;
        stopTimer();
        innerAbort?.abort();
        inner?.close();
        inner = null;
        log = [];
        results.close();
      };

      function open(): STTStream | null {
        const stt = chain[index];
        if (!stt) return null;
        const mine = generation;
        innerAbort = new AbortController();
        const stream = stt.stream({
          ...(rate ? { sampleRate: rate } : {}),
          ...options.defaults,
          ...streamOptions,
          signal: innerAbort.signal,
        });
        inner = stream;
        void (async () => {
          try {
            for await (const result of stream.results) {
              if (mine !== generation) return;
              if (result.kind === 'partial') {
                results.push(result);
                continue;
              }
              answered();
              results.push(result);
            }
            if (mine === generation && !results.closed)
              replace(
                new SpeechError(`${stt.name} stopped before the stream was closed`, 'stt_failed', true),
              );
          } catch (error) {
            if (mine === generation) replace(error);
          }
        })();
        return stream;
      }

      /** The oldest pending flush got its final: what led up to it needs no replay any more. */
      function answered() {
        pending = Math.max(0, pending - 1);
        const at = log.findIndex((e) => 'flush' in e);
        if (at >= 0) {
          for (const e of log.slice(0, at + 1)) if ('frame' in e) loggedMs -= msOf(e.frame);
          log = log.slice(at + 1);
        }
        armTimer();
      }

      function replace(error: unknown) {
        if (results.closed) return;
        const dropped = chain[index];
        generation += 1;
        stopTimer();
        innerAbort?.abort();
        inner?.close();
        inner = null;
        index += 1;
        // Dropped for the rest of the call: the wrapper's later streams start with the replacement.
        active = Math.max(active, index);
        const next = chain[index];
        if (!dropped || !next) {
          log = [];
          results.fail(
            error instanceof SpeechError
              ? error
              : new SpeechError(`speech recognition failed: ${reasonOf(error)}`, 'stt_failed', true, error),
          );
          return;
        }
        options.onSwitch?.({
          kind: 'stt',
          from: dropped.name,
          to: next.name,
          reason: reasonOf(error),
          at: clock.now(),
        });
        const replacement = open();
        for (const entry of log) {
          if ('frame' in entry) replacement?.push(entry.frame);
          else replacement?.flush();
        }
        armTimer();
      }

      if (outer?.aborted) {
        results.close();
        return { results, push: () => undefined, flush: () => undefined, close: () => undefined };
      }
      outer?.addEventListener('abort', shut, { once: true });
      // Opened at the first frame, at its rate unless the stream names one: a telephone leg's
      // 8 kHz audio reaches a hosted recognizer at 8 kHz. A socket's handshake then overlaps the
      // first utterance, which hosted recognizers decode faster than it is spoken.
      let rate: SampleRate | null = null;
      let opened = false;

      return {
        results,
        push(frame) {
          if (results.closed) return;
          if (!opened) {
            opened = true;
            rate = frame.sampleRate as SampleRate;
            open();
          }
          log.push({ frame });
          loggedMs += msOf(frame);
          // Only audio before the first pending flush is dropped: flushes keep their answers in order.
          for (let old = log[0]; loggedMs > maxReplayMs && old && 'frame' in old; old = log[0]) {
            log.shift();
            loggedMs -= msOf(old.frame);
          }
          audioSinceFlush = true;
          inner?.push(frame);
        },
        flush() {
          if (results.closed || !audioSinceFlush) return;
          audioSinceFlush = false;
          log.push({ flush: true });
          pending += 1;
          inner?.flush();
          if (pending === 1) armTimer();
        },
        close() {
          outer?.removeEventListener('abort', shut);
          shut();
        },
      };
    },
  };
}

const msOf = (frame: AudioFrame) => (frame.samples.length * 1000) / frame.sampleRate;
