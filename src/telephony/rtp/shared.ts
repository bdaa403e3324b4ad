import { SESSION_RATE, samplesPerFrame } from '../../media/index.ts';

// The memory one RTP endpoint shares between the thread that runs its media (the media worker, or
// the main thread in `caller` mode) and the main thread's leg. One SharedArrayBuffer:
// - `frames`: the far end's audio, decoded, one 20 ms frame per beat, written by the media thread
//   only and read by the leg on its beat (a ring of IN_SLOTS; a reader that falls further behind
//   loses the oldest, counted);
// - `events`: keys the far end pressed, our key presses sent, the RTP timeout (a ring of EV_SLOTS);
// - `stats`: the link's counts (LinkStats), rewritten by the media thread as it goes;
// - `send`: our stream's SSRC, next sequence number and last timestamp, so a media thread that
//   replaces a dead one carries on with the same stream.
// Indices only grow; every cross-thread index read or write is atomic, and a slot is written
// before its index moves.

/** Frames waiting for the leg: a second's worth. */
export const IN_SLOTS = 50;
export const EV_SLOTS = 64;
/** The largest frame handed over: 20 ms at 16 kHz (G.711 comes at 8 kHz, half of it). */
export const IN_SAMPLES = samplesPerFrame(SESSION_RATE);

/** Control words. */
export const FRAMES_WRITTEN = 0;
export const EVENTS_WRITTEN = 1;
const CONTROL_WORDS = 2;

/** Event kinds. */
export const EVENT_DIGIT = 1; // value: the key's char code
export const EVENT_DTMF_SENT = 2; // value: the sendDtmf request's id
export const EVENT_TIMEOUT = 3;

/** Float64 stats words (NaN for null). */
export const STAT_IN = 0;
export const STAT_LOST = 1;
export const STAT_LATE = 2;
export const STAT_REORDERED = 3;
export const STAT_REFUSED = 4;
export const STAT_OUT = 5;
export const STAT_LOSS = 6;
export const STAT_JITTER = 7;
/** Packets from an address other than the one latched on (ignored; also in STAT_REFUSED). */
export const STAT_FOREIGN = 8;
const STAT_WORDS = 9;

/** Float64 send-state words. */
export const SEND_SSRC = 0;
export const SEND_SEQUENCE = 1;
export const SEND_TIMESTAMP = 2;
/** The grid time of the last packet sent (NaN: none yet). */
export const SEND_LAST_AT = 3;
const SEND_WORDS = 4;

export interface EndpointView {
  readonly buffer: SharedArrayBuffer;
  readonly control: Int32Array;
  readonly stats: Float64Array;
  readonly send: Float64Array;
  /** Per frame slot: its time, then nothing (8-byte words). */
  readonly frameAt: Float64Array;
  readonly frameLengths: Int32Array;
  readonly frameRates: Int32Array;
  readonly samples: Int16Array;
  readonly eventAt: Float64Array;
  readonly eventKinds: Int32Array;
  readonly eventValues: Int32Array;
}

const F64_WORDS = STAT_WORDS + SEND_WORDS + IN_SLOTS + EV_SLOTS;
const I32_WORDS = CONTROL_WORDS + IN_SLOTS * 2 + EV_SLOTS * 2;
const F64_AT = 0;
const I32_AT = F64_WORDS * 8;
const SAMPLES_AT = I32_AT + I32_WORDS * 4;
export const ENDPOINT_BYTES = SAMPLES_AT + IN_SLOTS * IN_SAMPLES * 2;

export function endpointBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(ENDPOINT_BYTES);
}

export function endpointView(buffer: SharedArrayBuffer): EndpointView {
  if (buffer.byteLength !== ENDPOINT_BYTES)
    throw new RangeError(`an endpoint buffer is ${ENDPOINT_BYTES} bytes`);
  let f = F64_AT;
  const f64 = (n: number) => {
    const view = new Float64Array(buffer, f, n);
    f += n * 8;
    return view;
  };
  let i = I32_AT;
  const i32 = (n: number) => {
    const view = new Int32Array(buffer, i, n);
    i += n * 4;
    return view;
  };
  return {
    buffer,
    stats: f64(STAT_WORDS),
    send: f64(SEND_WORDS),
    frameAt: f64(IN_SLOTS),
    eventAt: f64(EV_SLOTS),
    control: i32(CONTROL_WORDS),
    frameLengths: i32(IN_SLOTS),
    frameRates: i32(IN_SLOTS),
    eventKinds: i32(EV_SLOTS),
    eventValues: i32(EV_SLOTS),
    samples: new Int16Array(buffer, SAMPLES_AT, IN_SLOTS * IN_SAMPLES),
  };
}

/** Media thread: hands the leg one frame (`length` samples of `samples` at `rate`, timed `at`). */
export function writeFrame(
  view: EndpointView,
  samples: Int16Array,
  length: number,
  rate: number,
  at: number,
): void {
  const n = Atomics.load(view.control, FRAMES_WRITTEN);
  const slot = n % IN_SLOTS;
  view.samples.set(length === samples.length ? samples : samples.subarray(0, length), slot * IN_SAMPLES);
  view.frameLengths[slot] = length;
  view.frameRates[slot] = rate;
  view.frameAt[slot] = at;
  Atomics.store(view.control, FRAMES_WRITTEN, n + 1);
}

/** Media thread: tells the leg of an event. */
export function writeEvent(view: EndpointView, kind: number, value: number, at: number): void {
  const n = Atomics.load(view.control, EVENTS_WRITTEN);
  const slot = n % EV_SLOTS;
  view.eventKinds[slot] = kind;
  view.eventValues[slot] = value;
  view.eventAt[slot] = at;
  Atomics.store(view.control, EVENTS_WRITTEN, n + 1);
}
