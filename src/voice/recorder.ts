import type { Clock } from '../core/index.ts';
import {
  Resampler,
  wavHeader as stereoWavHeader,
  SESSION_RATE,
  samplesPerFrame,
  type AudioFrame,
  type SampleRate,
  wrapLeg,
  type MediaLeg,
} from '../media/index.ts';

// The recording of a call (agents with `is_recording`): a stereo WAV at SESSION_RATE, the caller
// on the left, the agent on the right, written as the call goes. The recorder wraps the leg the
// voice session uses, so it sees every frame delivered and every frame queued without the
// session knowing. Caller frames at another rate (telephone audio at 8 kHz) are resampled to
// SESSION_RATE by one resampler per rate, which keeps its filter history from frame to frame, and
// placed earlier by the filter's delay. The agent channel holds what the caller heard: a queued
// frame is placed where it will play (now + what is queued ahead of it, to within a frame), and a
// barge-in's `clear` takes back whatever would have played after the fade.
//
// Memory stays bounded whatever the call's length: samples are mixed into a 2 s ring, and the
// part older than LAG (late caller frames still fit) is handed to the sink in CHUNK pieces. The
// sink is written one chunk at a time off the frame path; when it falls behind by more than
// BACKLOG, new audio is replaced by silence (counted, warned once), so the file keeps its
// timeline and memory its cap. Queued agent frames beyond the ring are held by reference only:
// the leg's own playout queue holds them anyway.

/** Where a recording goes: appended in order, one write at a time, then kept or discarded. */
export interface RecordingSink {
  /** Appends bytes. The chunk is not changed afterwards, and the sink must not change it either. */
  write(chunk: Uint8Array): Promise<void>;
  /** Overwrites the first `header.length` bytes (the WAV header, sizes now known) and keeps it. */
  finish(header: Uint8Array): Promise<void>;
  /** Discards what was written. */
  abort(): Promise<void>;
}

export interface RecordingInfo {
  durationMs: number;
  /** Size of the WAV file, header included. */
  bytes: number;
  /**
   * Frames skipped: caller frames that are not 20 ms at a rate Parley converts (8, 16, 24 or
   * 48 kHz), agent frames that are not 20 ms at SESSION_RATE.
   */
  skippedFrames: number;
  /** Caller frames whose time fell outside the ring: already written, or far ahead of now. */
  misplacedFrames: number;
  /** Audio replaced by silence because the sink fell behind. */
  droppedMs: number;
}

export interface RecorderStats {
  /** Bytes handed to the sink and not yet written. */
  backlogBytes: number;
  /** Agent frames queued beyond the ring (references to the leg's own queue). */
  pendingAgentFrames: number;
  /** The fixed ring of samples not yet handed to the sink. */
  ringBytes: number;
}

export interface RecorderLogger {
  warn(obj: object, msg?: string): void;
}

export interface RecordLegOptions {
  clock: Clock;
  sink: RecordingSink;
  /** Aborting discards the recording (`sink.abort()`); `finish()` then answers null. */
  signal?: AbortSignal;
  logger?: RecorderLogger;
  /** Stop recording after this much (default: the most a WAV file can hold, about 18.6 h). */
  maxDurationMs?: number;
}

export interface LegRecording {
  /** The leg the voice session uses instead of the original. */
  leg: MediaLeg;
  /**
   * After the call: writes what is left, the final header, and keeps the recording. Null when
   * nothing was recorded or the recording was aborted (the sink is then aborted); rejects when
   * the sink failed (after aborting it).
   */
  finish(): Promise<RecordingInfo | null>;
  readonly stats: RecorderStats;
}

const SAMPLES_PER_MS = SESSION_RATE / 1000;
const FRAME = samplesPerFrame(SESSION_RATE);
/** Bytes per stereo sample frame (two 16-bit channels). */
const BLOCK = 4;
const HEADER_BYTES = 44;
const LAG_MS = 500;
const CHUNK_MS = 500;
const RING_MS = 2000;
const LAG = LAG_MS * SAMPLES_PER_MS;
const CHUNK = CHUNK_MS * SAMPLES_PER_MS;
const RING = RING_MS * SAMPLES_PER_MS;

/** The recorder's fixed sizes. */
export const RECORDER_LIMITS = {
  /** How late a caller frame may come and still be placed. */
  lagMs: LAG_MS,
  /** Size of the pieces handed to the sink. */
  chunkMs: CHUNK_MS,
  /** The ring of samples not yet handed to the sink. */
  ringMs: RING_MS,
  ringBytes: RING * BLOCK,
  /** Bytes waiting for the sink beyond which new audio is replaced by silence. */
  backlogBytes: 4 * CHUNK * BLOCK,
} as const;

/** The largest data chunk a WAV file's 32-bit sizes allow, in whole stereo samples. */
const MAX_DATA_SAMPLES = Math.floor((0xffffffff - 36) / BLOCK);
const ZERO = new Uint8Array(CHUNK * BLOCK);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The 44-byte header of a stereo 16-bit PCM WAV at SESSION_RATE with `dataBytes` of samples. */
export function wavHeader(dataBytes: number): Uint8Array {
  return stereoWavHeader(SESSION_RATE, 2, dataBytes);
}

/**
 * A recording its process left unfinished (`written` bytes, header included, the header still
 * saying 0): the whole sample frames written, with the header that says their size. Null when
 * not one sample frame was written.
 */
export function sealWav(written: number): { bytes: number; header: Uint8Array } | null {
  const samples = Math.min(MAX_DATA_SAMPLES, Math.floor((written - HEADER_BYTES) / BLOCK));
  if (samples <= 0) return null;
  const dataBytes = samples * BLOCK;
  return { bytes: HEADER_BYTES + dataBytes, header: wavHeader(dataBytes) };
}

/** Seconds of audio in a WAV of `bytes` written by this recorder. */
export const wavSeconds = (bytes: number): number => Math.max(0, bytes - HEADER_BYTES) / BLOCK / SESSION_RATE;

const isSessionFrame = (frame: AudioFrame) =>
  frame.sampleRate === SESSION_RATE && frame.samples.length === FRAME;

const CALLER_RATES: readonly number[] = [8000, 16000, 24000, 48000];

/** A 20 ms frame at a rate the resampler knows. */
const isFrameAtKnownRate = (frame: AudioFrame) =>
  CALLER_RATES.includes(frame.sampleRate) &&
  frame.samples.length === samplesPerFrame(frame.sampleRate as SampleRate);

/** A caller stream at another rate: its resampler. */
interface CallerResampler {
  resampler: Resampler;
  /** The filter's delay in SESSION_RATE samples, taken off where the frame is placed. */
  delay: number;
}

interface QueuedFrame {
  /** Absolute sample index (from the recording's start) where it plays. */
  start: number;
  samples: Int16Array;
  /** Samples of it that play (a clear may cut it short). */
  length: number;
}

type State = 'recording' | 'finishing' | 'done' | 'aborted' | 'failed';

export function recordLeg(leg: MediaLeg, options: RecordLegOptions): LegRecording {
  const { clock, sink, signal, logger } = options;
  const startMs = clock.now();
  const limit = Math.min(MAX_DATA_SAMPLES, Math.floor((options.maxDurationMs ?? Infinity) * SAMPLES_PER_MS));
  const at = (ms: number) => Math.round((ms - startMs) * SAMPLES_PER_MS);

  let state: State = 'recording';
  const discarded = () => state === 'aborted' || state === 'failed';
  let failure: unknown = null;
  let endedAt: number | null = null;
  let recorded = false;
  let skippedFrames = 0;
  let misplacedFrames = 0;
  let droppedBytes = 0;
  const warned = new Set<string>();
  const warnOnce = (kind: string, msg: string) => {
    if (warned.has(kind)) return;
    warned.add(kind);
    logger?.warn({ sid: leg.sid, kind }, msg);
  };

  // Interleaved stereo samples [flushed, flushed + RING), by absolute index modulo RING.
  const ring = new Int16Array(RING * 2);
  let flushed = 0;
  // Caller frames at other rates: one resampler per rate (created when the rate first comes),
  // writing into one reused frame.
  const callerResamplers = new Map<number, CallerResampler>();
  const resampled = new Int16Array(FRAME);
  /** Nothing was written into the ring at or after this index: flushing there is silence. */
  let dirtyEnd = 0;
  // Agent frames not yet in the ring, by start.
  let agentQueue: QueuedFrame[] = [];
  let agentHead = 0;
  /** Where the last queued agent frame ends. */
  let agentEnd = 0;

  function writeRing(channel: 0 | 1, start: number, samples: Int16Array, length: number) {
    const from = Math.max(start, flushed);
    const to = Math.min(start + length, flushed + RING);
    for (let s = from; s < to; s += 1) ring[(s % RING) * 2 + channel] = samples[s - start] ?? 0;
    if (to > dirtyEnd) dirtyEnd = to;
  }

  /** Moves queued agent frames that now fit into the ring. */
  function absorb() {
    while (agentHead < agentQueue.length) {
      const frame = agentQueue[agentHead]!;
      if (frame.start + frame.length > flushed + RING) break;
      writeRing(1, frame.start, frame.samples, frame.length);
      agentHead += 1;
    }
    if (agentHead > 64 && agentHead * 2 > agentQueue.length) {
      agentQueue = agentQueue.slice(agentHead);
      agentHead = 0;
    }
  }

  /** Hands the ring's samples before `to` to the sink, in CHUNK pieces. */
  function flushTo(to: number, force: boolean) {
    to = Math.min(to, limit);
    while (flushed < to) {
      const n = Math.min(CHUNK, to - flushed);
      if (flushed >= dirtyEnd) enqueueSilence(n * BLOCK);
      else {
        const out = new Int16Array(n * 2);
        for (let i = 0; i < n; i += 1) {
          const p = ((flushed + i) % RING) * 2;
          out[i * 2] = ring[p]!;
          out[i * 2 + 1] = ring[p + 1]!;
          ring[p] = 0;
          ring[p + 1] = 0;
        }
        enqueue(toBytes(out), force);
      }
      flushed += n;
      absorb();
    }
  }

  /** Flushes what no late frame can change any more. */
  function advance() {
    const horizon = at(clock.now()) - LAG;
    if (horizon - flushed >= CHUNK) flushTo(horizon, false);
  }

  // The sink's queue: chunks, or a count of silent bytes (written from a shared zero buffer).
  const pending: (Uint8Array | number)[] = [];
  let backlogBytes = 0;
  let dataBytes = 0;
  let writing: Promise<void> | null = null;

  function enqueue(chunk: Uint8Array, force: boolean) {
    dataBytes += chunk.length;
    if (!force && backlogBytes + chunk.length > RECORDER_LIMITS.backlogBytes) {
      droppedBytes += chunk.length;
      warnOnce('sink_behind', 'recording sink is behind: audio replaced by silence');
      pushSilence(chunk.length);
      return;
    }
    push(chunk);
  }

  function push(chunk: Uint8Array) {
    backlogBytes += chunk.length;
    pending.push(chunk);
    writing ??= pump();
  }

  function enqueueSilence(bytes: number) {
    dataBytes += bytes;
    pushSilence(bytes);
  }

  function pushSilence(bytes: number) {
    const last = pending.length - 1;
    if (last >= 0 && typeof pending[last] === 'number') pending[last] = (pending[last] as number) + bytes;
    else pending.push(bytes);
    writing ??= pump();
  }

  async function pump() {
    // Off the frame path: the first write starts once the caller's turn is over.
    await null;
    try {
      for (let item = pending.shift(); item !== undefined; item = pending.shift()) {
        if (discarded()) return;
        if (typeof item !== 'number') {
          try {
            await sink.write(item);
          } finally {
            backlogBytes = Math.max(0, backlogBytes - item.length);
          }
          continue;
        }
        for (let left = item; left > 0; left -= ZERO.length) {
          await sink.write(ZERO.subarray(0, Math.min(left, ZERO.length)));
          if (discarded()) return;
        }
      }
    } catch (err) {
      fail(err);
    } finally {
      writing = null;
    }
  }

  async function drain() {
    while (writing) await writing;
  }

  let discarding: Promise<void> | null = null;
  /** Aborts the sink once, after the write in flight. */
  function discard(): Promise<void> {
    pending.length = 0;
    backlogBytes = 0;
    agentQueue = [];
    agentHead = 0;
    discarding ??= (async () => {
      await drain();
      await sink.abort().catch((err: unknown) => {
        logger?.warn({ sid: leg.sid, err }, 'recording sink failed to abort');
      });
    })();
    return discarding;
  }

  function fail(err: unknown) {
    if (discarded() || state === 'done') return;
    state = 'failed';
    failure = err;
    logger?.warn({ sid: leg.sid, err }, 'recording sink failed: recording discarded');
    void discard();
  }

  const onAbort = () => {
    if (state !== 'recording' && state !== 'finishing') return;
    state = 'aborted';
    void discard();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  const live = () => state === 'recording' && endedAt === null;

  /** The resampler for caller frames at `rate` (made when the rate first comes). */
  function callerResampler(rate: number): CallerResampler {
    let stream = callerResamplers.get(rate);
    if (!stream) {
      const resampler = new Resampler(rate as SampleRate, SESSION_RATE);
      stream = { resampler, delay: Math.round(resampler.delay) };
      callerResamplers.set(rate, stream);
    }
    return stream;
  }

  function recordCaller(frame: AudioFrame) {
    if (!live()) return;
    let samples: Int16Array | null = null;
    let delay = 0;
    if (isSessionFrame(frame)) samples = frame.samples;
    else if (isFrameAtKnownRate(frame)) {
      const stream = callerResampler(frame.sampleRate);
      // 20 ms in gives exactly 20 ms out (the resampler carries any fraction to the next frame).
      if (stream.resampler.process(frame.samples, resampled) === FRAME) samples = resampled;
      delay = stream.delay;
    }
    if (!samples) {
      skippedFrames += 1;
      warnOnce('skipped', 'recording skips frames of another rate or length');
      return;
    }
    advance();
    const start = at(frame.at) - delay;
    if (start + FRAME <= flushed || start >= flushed + RING) {
      misplacedFrames += 1;
      warnOnce('misplaced', 'recording skips caller frames outside its window');
      return;
    }
    writeRing(0, start, samples, FRAME);
    recorded = true;
  }

  function recordAgent(frame: AudioFrame) {
    if (!live()) return;
    if (!isSessionFrame(frame)) {
      skippedFrames += 1;
      warnOnce('skipped', 'recording skips frames of another rate or length');
      return;
    }
    // Right after the frames already queued; back to the leg's word when the two part by more
    // than a frame (the leg dropped or caught up on something).
    const expected = at(clock.now()) + Math.round(leg.queuedMs * SAMPLES_PER_MS);
    const start = Math.max(flushed, Math.abs(agentEnd - expected) <= FRAME ? agentEnd : expected);
    const queued: QueuedFrame = { start, samples: frame.samples, length: FRAME };
    let i = agentQueue.length;
    while (i > agentHead && agentQueue[i - 1]!.start > start) i -= 1;
    agentQueue.splice(i, 0, queued);
    agentEnd = start + FRAME;
    recorded = true;
    absorb();
    advance();
  }

  /** A clear keeps `fadeFrames` of the queue, fading out, and takes back the rest. */
  function recordClear(fadeFrames: number) {
    if (!live()) return;
    const queued = Math.round(leg.queuedMs * SAMPLES_PER_MS);
    const queueStart = Math.max(flushed, agentEnd - queued);
    const cut = queueStart + Math.min(Math.max(0, Math.floor(fadeFrames)) * FRAME, queued);
    const gain = (s: number) => 1 - (s - queueStart) / (cut - queueStart);
    // In the ring: fade, then silence from the cut on.
    const ringEnd = Math.min(dirtyEnd, flushed + RING);
    for (let s = Math.max(queueStart, flushed); s < ringEnd; s += 1) {
      const p = (s % RING) * 2 + 1;
      ring[p] = s < cut ? Math.round(ring[p]! * gain(s)) : 0;
    }
    // Beyond the ring: the same on the queued frames (copied before fading: they are the leg's).
    const kept: QueuedFrame[] = [];
    for (let i = agentHead; i < agentQueue.length; i += 1) {
      const frame = agentQueue[i]!;
      if (frame.start >= cut) continue;
      const length = Math.min(frame.length, cut - frame.start);
      if (frame.start + length <= queueStart) {
        kept.push(frame);
        continue;
      }
      const samples = new Int16Array(length);
      for (let j = 0; j < length; j += 1) {
        const s = frame.start + j;
        samples[j] = s < queueStart ? frame.samples[j]! : Math.round(frame.samples[j]! * gain(s));
      }
      kept.push({ start: frame.start, samples, length });
    }
    agentQueue = kept;
    agentHead = 0;
    agentEnd = Math.min(agentEnd, cut);
  }

  const markEnded = () => {
    endedAt ??= clock.now();
  };
  leg.ended.then(markEnded, markEnded);

  const wrapped = wrapLeg(leg, {
    audioIn(frame) {
      recordCaller(frame);
      return frame;
    },
    play(frame) {
      recordAgent(frame);
      leg.play(frame);
    },
    clear(fadeFrames) {
      recordClear(fadeFrames);
      leg.clear(fadeFrames);
    },
    hangup() {
      markEnded();
      return leg.hangup();
    },
  });

  // The header's sizes are unknown until the end; `finish` rewrites it.
  push(wavHeader(0));

  let finishing: Promise<RecordingInfo | null> | null = null;

  async function finish(): Promise<RecordingInfo | null> {
    if (state === 'recording') {
      state = 'finishing';
      // Nothing after the end was heard; agent frames still queued then never played.
      flushTo(Math.max(flushed, at(endedAt ?? clock.now())), true);
      agentQueue = [];
      agentHead = 0;
      await drain();
    }
    if (discarded()) {
      await discard();
      if (state === 'failed') throw failure;
      return null;
    }
    // From here an abort no longer discards: the sink is being kept (or discarded below).
    state = 'done';
    signal?.removeEventListener('abort', onAbort);
    if (!recorded) {
      await discard();
      return null;
    }
    try {
      await sink.finish(wavHeader(dataBytes));
    } catch (err) {
      logger?.warn({ sid: leg.sid, err }, 'recording sink failed to finish: recording discarded');
      await discard();
      throw err;
    }
    if (skippedFrames + misplacedFrames + droppedBytes > 0) {
      logger?.warn(
        { sid: leg.sid, skippedFrames, misplacedFrames, droppedMs: droppedBytes / BLOCK / SAMPLES_PER_MS },
        'recording is incomplete',
      );
    }
    return {
      durationMs: dataBytes / BLOCK / SAMPLES_PER_MS,
      bytes: HEADER_BYTES + dataBytes,
      skippedFrames,
      misplacedFrames,
      droppedMs: droppedBytes / BLOCK / SAMPLES_PER_MS,
    };
  }

  return {
    leg: wrapped,
    finish: () => (finishing ??= finish()),
    get stats() {
      return {
        backlogBytes,
        pendingAgentFrames: agentQueue.length - agentHead,
        ringBytes: ring.byteLength,
      };
    },
  };
}

/** Interleaved samples as little-endian bytes (the WAV byte order), in place. */
function toBytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < bytes.length; i += 2) {
      const b = bytes[i]!;
      bytes[i] = bytes[i + 1]!;
      bytes[i + 1] = b;
    }
  }
  return bytes;
}
