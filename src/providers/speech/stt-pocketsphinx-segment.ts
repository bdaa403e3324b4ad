// One stretch of a caller's speech on its way through a leased decoder. The audio starts before a
// decoder is free (the pool may be busy), so it is held until the lease arrives, then written as it
// comes. Ending it asks the decoder for the words; the wait is bounded from that moment, whether
// the time goes to waiting for a decoder or to decoding (one deadline for both), stretched for a
// decoder that got the held audio late.
import type { Clock } from '../../core/index.ts';
import { SESSION_RATE } from '../../media/index.ts';
import type { Band, DecoderLease, DecoderPool } from './stt-pocketsphinx-pool.ts';
import { SpeechError } from './types.ts';

export interface Segment {
  /** Audio, 16 kHz mono; held until a decoder is leased. */
  write(samples: Int16Array): void;
  /** No more audio: the words, once decoded. Rejects with a retryable SpeechError('stt_failed'). */
  end(): Promise<string>;
  /** The stream closed: the decoder finishes and goes back; the words are dropped. */
  abandon(): void;
}

export interface SegmentOptions {
  pool: DecoderPool;
  /** Which decoders it prefers (telephone or wideband audio). */
  band: Band;
  clock: Clock;
  /** From `end()` to the words, at most (ms of `clock`). */
  timeoutMs: number;
}

/** Starts a stretch with `first` (the pre-roll); asks the pool for a decoder at once. */
export function openSegment(options: SegmentOptions, first: Int16Array): Segment {
  const { pool, band, clock, timeoutMs } = options;
  let held: Int16Array[] | null = first.length > 0 ? [first] : [];
  let lease: DecoderLease | null = null;
  let failure: unknown = null;
  let ended: { resolve: (text: string) => void; reject: (error: unknown) => void } | null = null;
  let words: Promise<string> | null = null;
  let abandoned = false;
  let deadlineAt = 0;
  const acquiring = new AbortController();
  const deadline = new AbortController();

  /** When the lease came, and how much held audio it was handed in one go (ms at 16 kHz). */
  let leasedAt = 0;
  let bulkMs = 0;
  const finish = (got: DecoderLease) => {
    const done = ended;
    if (!done) return;
    // A decoder handed the stretch late decodes the held audio from scratch: it gets at least
    // that audio's length (decoding runs well under real time), so a busy pool on a loaded
    // machine does not cost a healthy decoder; a stalled one is still caught.
    got.finish(Math.max(deadlineAt, leasedAt + bulkMs)).then(done.resolve, done.reject);
  };

  pool.acquire(band, acquiring.signal).then(
    (got) => {
      deadline.abort();
      if (abandoned) {
        got.finish().catch(() => undefined);
        return;
      }
      lease = got;
      leasedAt = clock.now();
      for (const samples of held ?? []) {
        got.write(samples);
        bulkMs += (samples.length * 1000) / SESSION_RATE;
      }
      held = null;
      finish(got);
    },
    (error: unknown) => {
      deadline.abort();
      failure = error;
      ended?.reject(error);
    },
  );

  return {
    write(samples) {
      if (ended || abandoned) return;
      if (lease) lease.write(samples);
      // Held for a while: a copy, in case the caller reuses its frame buffers.
      else held?.push(samples.slice());
    },
    end() {
      if (words) return words;
      words = new Promise<string>((resolve, reject) => (ended = { resolve, reject }));
      deadlineAt = clock.now() + timeoutMs;
      if (failure) ended?.reject(failure);
      else if (lease) finish(lease);
      else {
        // No decoder yet: give up if none comes in time (the lease's own timeout covers decoding).
        clock.sleep(timeoutMs, deadline.signal).then(
          () =>
            acquiring.abort(
              new SpeechError(
                `no pocketsphinx decoder became free within ${timeoutMs} ms`,
                'stt_failed',
                true,
              ),
            ),
          () => undefined,
        );
      }
      return words;
    },
    abandon() {
      if (abandoned) return;
      abandoned = true;
      held = null;
      deadline.abort();
      if (lease && !ended) lease.finish().catch(() => undefined);
      else if (!lease) acquiring.abort(new SpeechError('the stream was closed', 'stt_failed', false));
    },
  };
}
