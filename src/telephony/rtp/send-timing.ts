// How late the RTP media thread sends (docs/sip.md, "Media (RTP)"): per packet, how long after its
// slot on the 20 ms grid it left (the socket's send returned); per tick of the thread, how long
// after the tick's time it woke. Fixed-bucket counters in one SharedArrayBuffer that RtpMedia
// creates and hands to whichever thread runs the media (a replacement worker carries on with the
// same counts). Only that thread writes: a packet costs a subtraction, a bucket index and four
// stores into preallocated memory, no allocation. The main thread reads a copy at any time
// (RtpMedia.sendTiming()); two reads give a window (`timingSince`).

/** Buckets per ms: 10 µs each (an integer, so that a bucket's edges are exact multiples). */
export const TIMING_BUCKETS_PER_MS = 100;
/** Buckets up to 100 ms; one more counts everything later. */
export const TIMING_BUCKETS = 10_000;

const COUNT = 0;
const SUM = 1;
const MAX = 2;
const MIN = 3;
const HEAD_WORDS = 4;
const SERIES_WORDS = HEAD_WORDS + TIMING_BUCKETS + 1;
const PACKETS_AT = 0;
const TICKS_AT = SERIES_WORDS;
const WORDS = 2 * SERIES_WORDS;

/** One series of counts: a copy, as read. */
export interface LatenessCounts {
  readonly count: number;
  /** Sum of the lateness (ms): its mean is sumMs / count. */
  readonly sumMs: number;
  /** The latest and the earliest (negative: before its time) seen (ms); NaN when none. */
  readonly maxMs: number;
  readonly minMs: number;
  /** Per 10 µs bucket from 0 (earlier than its time counts in the first); the last: later than 100 ms. */
  readonly buckets: Float64Array;
}

export interface RtpSendTiming {
  /** Every RTP packet sent (audio, comfort silence, telephone events): how late it left. */
  readonly packets: LatenessCounts;
  /** Every tick of the media thread's beat (a 20 ms beat in ticks, each session on one): how late it woke. */
  readonly ticks: LatenessCounts;
}

export function sendTimingBuffer(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(WORDS * 8);
  const words = new Float64Array(buffer);
  for (const at of [PACKETS_AT, TICKS_AT]) {
    words[at + MAX] = Number.NaN;
    words[at + MIN] = Number.NaN;
  }
  return buffer;
}

function record(words: Float64Array, at: number, lateMs: number): void {
  const index = lateMs <= 0 ? 0 : Math.min(TIMING_BUCKETS, Math.floor(lateMs * TIMING_BUCKETS_PER_MS));
  const bucket = at + HEAD_WORDS + index;
  words[bucket] = (words[bucket] ?? 0) + 1;
  words[at + COUNT] = (words[at + COUNT] ?? 0) + 1;
  words[at + SUM] = (words[at + SUM] ?? 0) + lateMs;
  // NaN (none yet) compares false both ways: the first value sets both.
  if (!(lateMs <= (words[at + MAX] ?? Number.NaN))) words[at + MAX] = lateMs;
  if (!(lateMs >= (words[at + MIN] ?? Number.NaN))) words[at + MIN] = lateMs;
}

/** The media thread's side: records into the shared counters. */
export class SendTimingRecorder {
  private readonly words: Float64Array;

  constructor(buffer: SharedArrayBuffer) {
    if (buffer.byteLength !== WORDS * 8) throw new RangeError(`a send timing buffer is ${WORDS * 8} bytes`);
    this.words = new Float64Array(buffer);
  }

  /** A packet left `lateMs` after its slot. */
  packet(lateMs: number): void {
    record(this.words, PACKETS_AT, lateMs);
  }

  /** A tick of the beat began `lateMs` after its time. */
  tick(lateMs: number): void {
    record(this.words, TICKS_AT, lateMs);
  }
}

function readSeries(words: Float64Array, at: number): LatenessCounts {
  return {
    count: words[at + COUNT] ?? 0,
    sumMs: words[at + SUM] ?? 0,
    maxMs: words[at + MAX] ?? Number.NaN,
    minMs: words[at + MIN] ?? Number.NaN,
    buckets: words.slice(at + HEAD_WORDS, at + SERIES_WORDS),
  };
}

/** A copy of the counters now (the writer may be mid-packet: a count may lead its bucket by one). */
export function readSendTiming(buffer: SharedArrayBuffer): RtpSendTiming {
  const words = new Float64Array(buffer);
  return { packets: readSeries(words, PACKETS_AT), ticks: readSeries(words, TICKS_AT) };
}

/** The upper edge (ms) of bucket `i`; the last bucket has none (later than 100 ms). */
const upperEdge = (i: number) => (i + 1) / TIMING_BUCKETS_PER_MS;

/**
 * What was counted between two reads of the same counters. The window's max is exact when it is
 * the latest ever seen, else the upper edge of its bucket (10 µs; past 100 ms, the latest ever
 * seen: an upper bound); the min is exact when it is the earliest ever seen, else its bucket's
 * lower edge.
 */
export function timingSince(later: LatenessCounts, earlier: LatenessCounts): LatenessCounts {
  const buckets = new Float64Array(later.buckets.length);
  let highest = -1;
  let lowest = -1;
  for (let i = 0; i < buckets.length; i += 1) {
    const n = (later.buckets[i] ?? 0) - (earlier.buckets[i] ?? 0);
    buckets[i] = n;
    if (n > 0) {
      highest = i;
      if (lowest < 0) lowest = i;
    }
  }
  const newMax = later.maxMs > earlier.maxMs || (Number.isNaN(earlier.maxMs) && !Number.isNaN(later.maxMs));
  const newMin = later.minMs < earlier.minMs || (Number.isNaN(earlier.minMs) && !Number.isNaN(later.minMs));
  return {
    count: later.count - earlier.count,
    sumMs: later.sumMs - earlier.sumMs,
    maxMs:
      highest < 0
        ? Number.NaN
        : newMax || highest === TIMING_BUCKETS
          ? later.maxMs
          : Math.min(later.maxMs, upperEdge(highest)),
    minMs:
      lowest < 0 ? Number.NaN : newMin ? later.minMs : Math.max(later.minMs, lowest / TIMING_BUCKETS_PER_MS),
    buckets,
  };
}

/**
 * The q-th percentile (0-100) in ms: the upper edge of the bucket it falls in (an overstatement by
 * under 10 µs), capped at the max; NaN when nothing was counted.
 */
export function latenessPercentile(counts: LatenessCounts, q: number): number {
  let total = 0;
  for (const n of counts.buckets) total += n;
  if (total <= 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((q / 100) * total));
  let seen = 0;
  for (let i = 0; i < counts.buckets.length; i += 1) {
    seen += counts.buckets[i] ?? 0;
    if (seen >= rank) return i === TIMING_BUCKETS ? counts.maxMs : Math.min(counts.maxMs, upperEdge(i));
  }
  return counts.maxMs;
}

/** Counted at `ms` or later (to the bucket: `ms` is rounded down to 10 µs). */
export function latenessAbove(counts: LatenessCounts, ms: number): number {
  const from = Math.max(0, Math.min(TIMING_BUCKETS, Math.floor(ms * TIMING_BUCKETS_PER_MS)));
  let n = 0;
  for (let i = from; i < counts.buckets.length; i += 1) n += counts.buckets[i] ?? 0;
  return n;
}
