// Browser audio for the test call (pages/test-call.tsx): the microphone captured and cut into the
// call's 20 ms frames at its rate, and the agent's frames played through a small jitter buffer,
// both through one ScriptProcessorNode (an AudioWorklet would need a module file of its own). The
// rates differ (the page runs at the device's, 44.1 or 48 kHz; the call at 16 or 8 kHz): a
// band-limited resampler converts each way. No allocation per frame: rings and buffers are made
// once per call.

/**
 * A streaming resampler: windowed-sinc interpolation (a low-pass at 0.9 of the lower Nyquist
 * rate, so downsampling does not alias) over a ring of input samples. `write` adds input, `read`
 * takes as much output as the input written allows.
 */
export class Resampler {
  /** Input samples per output sample. */
  readonly step: number;
  private readonly ring: Float32Array;
  private readonly mask: number;
  /** Input samples written so far (the ring's write position, unwrapped). */
  private written = 0;
  /** The next output's position in the input (unwrapped, fractional). */
  private position = 0;
  /** Kernel reach either side, in input samples. */
  private readonly reach: number;
  private readonly kernel: Float32Array;
  private readonly kernelScale: number;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
    /** The most input held (samples, rounded up to a power of two). */
    capacity = 1 << 15,
  ) {
    this.step = inRate / outRate;
    let size = 1;
    while (size < capacity) size <<= 1;
    this.ring = new Float32Array(size);
    this.mask = size - 1;
    const cutoff = 0.9 * Math.min(1, outRate / inRate);
    const zeroCrossings = 8;
    this.reach = zeroCrossings / cutoff;
    // The kernel tabulated at 1/KERNEL_STEPS of an input sample, 0..reach (it is symmetric).
    this.kernelScale = KERNEL_STEPS;
    this.kernel = new Float32Array(Math.ceil(this.reach * KERNEL_STEPS) + 2);
    for (let i = 0; i < this.kernel.length; i += 1) {
      const x = i / KERNEL_STEPS;
      if (x >= this.reach) continue;
      const t = Math.PI * cutoff * x;
      const sinc = x === 0 ? 1 : Math.sin(t) / t;
      const window = 0.5 + 0.5 * Math.cos((Math.PI * x) / this.reach); // Hann
      this.kernel[i] = cutoff * sinc * window;
    }
  }

  /** Outputs that `read` can give now. */
  get available(): number {
    const last = this.written - 1 - this.reach; // the latest position whose kernel is all written
    return last < this.position ? 0 : Math.floor((last - this.position) / this.step) + 1;
  }

  /** Adds input samples (`scale` turns integers into -1..1: 1 / 32768 for 16-bit PCM). */
  write(samples: ArrayLike<number>, scale = 1): void {
    const { ring, mask } = this;
    let at = this.written;
    for (let i = 0; i < samples.length; i += 1, at += 1) ring[at & mask] = samples[i]! * scale;
    this.written = at;
    // Over capacity: the oldest input is dropped (the reader moves past it).
    const oldest = this.written - ring.length + Math.ceil(this.reach) + 1;
    if (this.position < oldest) this.position = oldest;
  }

  /** Writes up to `count` outputs into `out` from `offset`; returns how many. */
  read(out: Float32Array, count: number, offset = 0): number {
    const n = Math.min(count, this.available);
    const { ring, mask, kernel, kernelScale, reach, step } = this;
    let p = this.position;
    for (let k = 0; k < n; k += 1, p += step) {
      const from = Math.ceil(p - reach);
      const to = Math.floor(p + reach);
      let sum = 0;
      for (let j = from; j <= to; j += 1) {
        const d = Math.abs(p - j) * kernelScale;
        const i = d | 0;
        const w = kernel[i]! + (kernel[i + 1]! - kernel[i]!) * (d - i);
        sum += ring[j & mask]! * w;
      }
      out[offset + k] = sum;
    }
    this.position = p;
    return n;
  }

  /** Drops input so that about `keep` outputs remain available. */
  skipTo(keep: number): void {
    const excess = this.available - keep;
    if (excess > 0) this.position += excess * this.step;
  }
}

const KERNEL_STEPS = 256;

/** Float -1..1 to 16-bit PCM, rounded and clipped. */
export function toPcm16(from: Float32Array, to: Int16Array): void {
  for (let i = 0; i < to.length; i += 1) {
    const s = Math.round(from[i]! * 32767);
    to[i] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
  }
}

export interface CallAudioOptions {
  /** The call's rate (its codec's: 16000 for l16). */
  callRate: number;
  /** Each 20 ms frame of the microphone at the call's rate (the array is reused). */
  onFrame: (pcm: Int16Array) => void;
  /** Playback starts once this much of the agent's audio is held (ms; default 60). */
  startMs?: number;
  /** Beyond this much held (a burst after a stall), the oldest is skipped back to `startMs` (default 300). */
  maxMs?: number;
}

export interface CallAudio {
  /** Queues one of the agent's frames (at the call's rate) for playback; it is copied. */
  play(pcm: Int16Array): void;
  /** The agent's audio held, not yet played (ms). */
  readonly bufferedMs: number;
  /** The agent's audio the jitter buffer skipped to cut its delay (ms). */
  readonly stats: { skippedMs: number };
  close(): Promise<void>;
}

/** ScriptProcessorNode's buffer: 2048 samples (43 ms at 48 kHz) each way. */
const PROCESSOR_SAMPLES = 2048;

/**
 * Opens the microphone (the browser asks the user) and the page's audio: the microphone is sent
 * as 20 ms frames to `onFrame`, `play` plays the agent. Throws the browser's error when the
 * microphone is refused or missing (NotAllowedError, NotFoundError).
 */
export async function openCallAudio(options: CallAudioOptions): Promise<CallAudio> {
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
  });
  let context: AudioContext;
  try {
    context = new AudioContext({ latencyHint: 'interactive' });
    if (context.state === 'suspended') await context.resume();
  } catch (err) {
    for (const track of stream.getTracks()) track.stop();
    throw err;
  }
  const rate = context.sampleRate;
  const callRate = options.callRate;
  const frameSamples = callRate / 50;
  const capture = new Resampler(rate, callRate, 1 << 14);
  const playback = new Resampler(callRate, rate, 1 << 15);
  const frameFloat = new Float32Array(frameSamples);
  const frame = new Int16Array(frameSamples);
  const startOut = Math.round(((options.startMs ?? 60) * rate) / 1000);
  const maxOut = Math.round(((options.maxMs ?? 300) * rate) / 1000);
  const stats = { skippedMs: 0 };
  let playing = false;

  const source = context.createMediaStreamSource(stream);
  const processor = context.createScriptProcessor(PROCESSOR_SAMPLES, 1, 1);
  processor.onaudioprocess = (event) => {
    // The microphone, in the call's frames.
    capture.write(event.inputBuffer.getChannelData(0));
    while (capture.available >= frameSamples) {
      capture.read(frameFloat, frameSamples);
      toPcm16(frameFloat, frame);
      options.onFrame(frame);
    }
    // The agent, through the jitter buffer: it starts once `startOut` is held, skips a burst's
    // excess, and after running dry waits to fill again.
    const out = event.outputBuffer.getChannelData(0);
    let available = playback.available;
    if (available > maxOut) {
      stats.skippedMs += ((available - startOut) * 1000) / rate;
      playback.skipTo(startOut);
      available = startOut;
    }
    if (!playing && available >= startOut) playing = true;
    const n = playing ? playback.read(out, out.length) : 0;
    if (n < out.length) playing = false;
    out.fill(0, n);
  };
  source.connect(processor);
  processor.connect(context.destination);

  return {
    play(pcm) {
      playback.write(pcm, 1 / 32768);
    },
    get bufferedMs() {
      return (playback.available * 1000) / rate;
    },
    stats,
    async close() {
      processor.onaudioprocess = null;
      source.disconnect();
      processor.disconnect();
      for (const track of stream.getTracks()) track.stop();
      await context.close();
    },
  };
}
