import type { Clock } from '../../core/index.ts';
import {
  FRAME_MS,
  SESSION_RATE,
  createDataSpeechReader,
  dataSpeechFrames,
  samplesPerFrame,
  type AudioFrame,
  type LegEndReason,
  type MediaLeg,
  type MediaReceiver,
} from '../../media/index.ts';

// A scripted far end on a MediaLeg, paced by a (manual) clock: every 20 ms it delivers one frame
// of its own audio (speech from the script, else silence) and plays one frame of our queue,
// keeping `playedMs` and recording what it played and when, so tests can decode what the far
// end heard (data speech) and check when playout stopped. The script runs step by step; speech
// is data speech (the fake STT reads it back exactly).

export type FarEndStep =
  /** Says `text` as data speech. */
  | { say: string }
  /** Silence for `ms`. */
  | { wait: number }
  /** Waits until our audio has started playing (a frame was played in the last 20 ms). */
  | { waitForAgentAudio: true }
  /** Waits until we have played something since this step began and then been silent for `ms`. */
  | { waitForAgentSilence: number }
  /** Presses keys, one every `gapMs` (default 100). */
  | { dtmf: string; gapMs?: number }
  /** A steady sine, e.g. an answering machine's beep. */
  | { tone: { hz: number; ms: number; amplitude?: number } }
  /** Raw frames, delivered as they are (garbage included). */
  | { frames: AudioFrame[] }
  | { hangup: true };

export interface PlayedFrame {
  /** When the frame started playing (clock ms). */
  at: number;
  frame: AudioFrame;
}

export interface FakeLeg extends MediaLeg {
  readonly played: readonly PlayedFrame[];
  readonly clears: readonly { at: number; fadeFrames: number }[];
  readonly sentDtmf: readonly string[];
  readonly endReason: LegEndReason | null;
  /** Exceptions our receiver threw (a test expects none). */
  readonly receiverErrors: readonly unknown[];
  /** When each `say` step started being delivered. */
  readonly saidAt: readonly { text: string; at: number }[];
  readonly scriptDone: boolean;
  /** What the far end heard, decoded from data speech. */
  heardText(from?: number, to?: number): string;
}

const FRAME_SAMPLES = samplesPerFrame(SESSION_RATE);
const SILENCE = new Int16Array(FRAME_SAMPLES);
const msOf = (frame: AudioFrame) => (frame.samples.length * 1000) / frame.sampleRate;

export function toneFrames(hz: number, ms: number, amplitude = 8000): AudioFrame[] {
  const rate = SESSION_RATE;
  const n = samplesPerFrame(rate);
  const frames: AudioFrame[] = [];
  for (let f = 0; f < Math.round(ms / FRAME_MS); f += 1) {
    const samples = new Int16Array(n);
    for (let i = 0; i < n; i += 1) {
      samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * (f * n + i)) / rate));
    }
    frames.push({ samples, sampleRate: SESSION_RATE, at: 0 });
  }
  return frames;
}

export function createFakeLeg(options: { clock: Clock; script: FarEndStep[]; sid?: string }): FakeLeg {
  const { clock } = options;
  const script = [...options.script];
  const played: PlayedFrame[] = [];
  const clears: { at: number; fadeFrames: number }[] = [];
  const sentDtmf: string[] = [];
  const receiverErrors: unknown[] = [];
  const saidAt: { text: string; at: number }[] = [];
  const queue: AudioFrame[] = [];
  let queuedMs = 0;
  let playedMs = 0;
  let fadeLeft = 0;
  let fadeTotal = 0;
  let receiver: MediaReceiver | null = null;
  let endReason: LegEndReason | null = null;
  let resolveEnded: (reason: LegEndReason) => void = () => undefined;
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  const drainWaiters: (() => void)[] = [];
  const stop = new AbortController();

  // Far-end state.
  const outbox: AudioFrame[] = [];
  // Frames of a `frames` step, delivered exactly as given (their own `at`, rate and length).
  const verbatim = new Set<AudioFrame>();
  let waitUntil = 0;
  let keys: { digits: string[]; gapMs: number; nextAt: number } | null = null;
  let lastAgentFrameAt = -Infinity;
  // playedMs when the current waiting step began (null: the step has not started waiting).
  let stepPlayedMs: number | null = null;

  function end(reason: LegEndReason) {
    if (endReason) return;
    endReason = reason;
    queue.length = 0;
    queuedMs = 0;
    stop.abort();
    resolveEnded(reason);
    wakeDrained();
  }

  function wakeDrained() {
    for (const wake of drainWaiters.splice(0)) wake();
  }

  /** Runs script steps until one has to wait. */
  function advance(now: number) {
    for (;;) {
      if (outbox.length > 0 || now < waitUntil) return;
      if (keys) {
        if (now < keys.nextAt) return;
        const digit = keys.digits.shift();
        if (digit !== undefined) {
          deliver(() => receiver?.dtmf(digit, now));
          keys.nextAt = now + keys.gapMs;
          if (keys.digits.length > 0) return;
        }
        keys = null;
      }
      const step = script[0];
      if (!step) return;
      if ('waitForAgentAudio' in step) {
        if (now - lastAgentFrameAt > FRAME_MS) return;
      } else if ('waitForAgentSilence' in step) {
        stepPlayedMs ??= playedMs;
        if (
          playedMs === stepPlayedMs ||
          queue.length > 0 ||
          now - lastAgentFrameAt < step.waitForAgentSilence
        )
          return;
      }
      stepPlayedMs = null;
      script.shift();
      if ('say' in step) {
        saidAt.push({ text: step.say, at: now });
        outbox.push(...dataSpeechFrames(step.say));
      } else if ('wait' in step) waitUntil = now + step.wait;
      else if ('dtmf' in step) keys = { digits: [...step.dtmf], gapMs: step.gapMs ?? 100, nextAt: now };
      else if ('tone' in step) outbox.push(...toneFrames(step.tone.hz, step.tone.ms, step.tone.amplitude));
      else if ('frames' in step) {
        for (const frame of step.frames) verbatim.add(frame);
        outbox.push(...step.frames);
      } else if ('hangup' in step) {
        end('remote_hangup');
        return;
      }
    }
  }

  function deliver(fn: () => void) {
    try {
      fn();
    } catch (err) {
      receiverErrors.push(err);
    }
  }

  function beat() {
    const now = clock.now();
    advance(now);
    if (endReason) return;
    // The far end's frame, captured over the last 20 ms.
    const next = outbox.shift();
    const frame: AudioFrame = next
      ? verbatim.delete(next)
        ? next
        : { samples: next.samples, sampleRate: next.sampleRate, at: now - FRAME_MS }
      : { samples: SILENCE, sampleRate: SESSION_RATE, at: now - FRAME_MS };
    deliver(() => receiver?.audio(frame));
    // Our frame, played now.
    const out = queue.shift();
    if (out) {
      queuedMs -= msOf(out);
      let heard = out;
      if (fadeLeft > 0) {
        const gain = fadeLeft / (fadeTotal + 1);
        heard = { ...out, samples: out.samples.map((s) => Math.round(s * gain)) };
        fadeLeft -= 1;
      }
      played.push({ at: now, frame: heard });
      playedMs += msOf(out);
      lastAgentFrameAt = now;
      if (queue.length === 0) wakeDrained();
    }
  }

  void (async () => {
    try {
      for (;;) {
        await clock.sleep(FRAME_MS, stop.signal);
        beat();
      }
    } catch {
      // stopped
    }
  })();

  return {
    sid: options.sid ?? 'fake-leg',
    receive(r) {
      receiver = r;
    },
    play(frame) {
      if (endReason) return;
      queue.push(frame);
      queuedMs += msOf(frame);
    },
    clear(fadeFrames = 0) {
      clears.push({ at: clock.now(), fadeFrames });
      const keep = queue.splice(0, Math.max(0, fadeFrames));
      queue.length = 0;
      queue.push(...keep);
      queuedMs = keep.reduce((sum, f) => sum + msOf(f), 0);
      fadeLeft = keep.length;
      fadeTotal = keep.length;
      if (queue.length === 0) wakeDrained();
    },
    get playedMs() {
      return playedMs;
    },
    get queuedMs() {
      return queuedMs;
    },
    drained() {
      if (endReason || queue.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => drainWaiters.push(resolve));
    },
    async sendDtmf(digits) {
      sentDtmf.push(digits);
    },
    async transfer() {
      throw new Error('the fake leg cannot transfer');
    },
    async hangup() {
      end('local_hangup');
    },
    ended,
    get played() {
      return played;
    },
    clears,
    sentDtmf,
    get endReason() {
      return endReason;
    },
    receiverErrors,
    saidAt,
    get scriptDone() {
      return script.length === 0 && outbox.length === 0 && keys === null;
    },
    heardText(from = -Infinity, to = Infinity) {
      const reader = createDataSpeechReader();
      for (const p of played) if (p.at >= from && p.at <= to) reader.push(p.frame);
      return reader.text;
    },
  };
}
