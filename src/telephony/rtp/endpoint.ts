import {
  SESSION_RATE,
  dtmfEventCode,
  dtmfTones,
  type AudioFrame,
  type LinkStats,
  type MediaReceiver,
  type SampleRate,
} from '../../media/index.ts';
import { FrameRing, type FrameTick } from '../pacing/index.ts';
import {
  EVENT_DIGIT,
  EVENT_DTMF_SENT,
  EVENT_TIMEOUT,
  EVENTS_WRITTEN,
  EV_SLOTS,
  FRAMES_WRITTEN,
  IN_SAMPLES,
  IN_SLOTS,
  SEND_LAST_AT,
  SEND_SEQUENCE,
  SEND_SSRC,
  SEND_TIMESTAMP,
  STAT_IN,
  STAT_JITTER,
  STAT_LATE,
  STAT_LOSS,
  STAT_LOST,
  STAT_OUT,
  STAT_REFUSED,
  STAT_REORDERED,
  endpointBuffer,
  endpointView,
  type EndpointView,
} from './shared.ts';
import type { RtpEndpoint, RtpRemote } from './types.ts';

// The main thread's side of one call's RTP: the leg's half of the shared memory. What it does per
// 20 ms beat: copies the far end's frame out of shared memory and hands it to the receiver, reads
// the events (keys, keys sent, the timeout), and lets the FrameRing refill and wake drained().
// Encoding, sending, receiving, the jitter buffer and decoding are the media thread's.

/** What the endpoint asks of the thread that runs its media (media.ts). */
export interface EndpointLink {
  update(id: number, remote: RtpRemote): void;
  keys(id: number, requestId: number, digits: string): void;
  close(id: number): void;
}

const randomUint = (bits: 16 | 32): number => Math.floor(Math.random() * 2 ** bits);

export class Endpoint implements RtpEndpoint {
  readonly ring = new FrameRing();
  readonly shared = endpointBuffer();
  readonly view: EndpointView = endpointView(this.shared);
  /** On the main thread's beat. */
  readonly tick: FrameTick = { send: () => {}, deliver: () => this.deliver() };
  port = 0;
  remote: RtpRemote | null = null;
  private receiver: MediaReceiver | null = null;
  private framesRead = 0;
  private eventsRead = 0;
  /** Frames the beat could not hand over in time (the main thread stalled over a second). */
  private framesBehind = 0;
  private timeoutHandler: (() => void) | null = null;
  private timedOut = false;
  private closed = false;
  private nextRequest = 1;
  private readonly keyWaiters = new Map<number, () => void>();
  private toneWaiters: { untilMs: number; resolve: () => void }[] = [];

  constructor(
    readonly id: number,
    private readonly link: () => EndpointLink,
    private readonly onClose: (endpoint: Endpoint) => void,
  ) {
    const { send } = this.view;
    send[SEND_SSRC] = randomUint(32);
    send[SEND_SEQUENCE] = randomUint(16);
    send[SEND_TIMESTAMP] = randomUint(32);
    send[SEND_LAST_AT] = Number.NaN;
  }

  update(remote: RtpRemote): void {
    if (this.closed) return;
    this.remote = { ...remote };
    this.link().update(this.id, this.remote);
  }

  receive(receiver: MediaReceiver): void {
    this.receiver = receiver;
  }

  play(frame: AudioFrame): void {
    if (!this.closed) this.ring.play(frame);
  }

  clear(fadeFrames = 0): void {
    this.ring.clear(fadeFrames);
    // Tones cleared with the rest are as sent as they will be.
    if (fadeFrames === 0) this.wakeTones(true);
  }

  get playedMs(): number {
    return this.ring.playedMs;
  }

  get queuedMs(): number {
    return this.ring.queuedMs;
  }

  drained(): Promise<void> {
    return this.closed ? Promise.resolve() : this.ring.whenIdle();
  }

  sendDtmf(digits: string): Promise<void> {
    for (const digit of digits) {
      if (dtmfEventCode(digit) < 0)
        return Promise.reject(new RangeError(`not a DTMF key: ${JSON.stringify(digit)}`));
    }
    if (this.closed || digits.length === 0) return Promise.resolve();
    const remote = this.remote;
    const sends = remote !== null && (remote.direction === 'sendrecv' || remote.direction === 'sendonly');
    if (sends && remote.telephoneEvent !== null) {
      const requestId = this.nextRequest++;
      return new Promise<void>((resolve) => {
        this.keyWaiters.set(requestId, resolve);
        this.link().keys(this.id, requestId, digits);
      });
    }
    // No telephone-event: the keys' tones, in the agent's audio after what is queued.
    this.ring.play({
      samples: dtmfTones(digits, { sampleRate: SESSION_RATE }),
      sampleRate: SESSION_RATE,
      at: 0,
    });
    const untilMs = this.ring.playedMs + this.ring.queuedMs;
    return new Promise<void>((resolve) => this.toneWaiters.push({ untilMs, resolve }));
  }

  linkStats(): LinkStats {
    const { stats } = this.view;
    const value = (i: number) => stats[i] ?? 0;
    const loss = value(STAT_LOSS);
    const jitter = value(STAT_JITTER);
    return {
      framesIn: value(STAT_IN),
      framesLost: value(STAT_LOST) + this.framesBehind,
      framesLate: value(STAT_LATE),
      framesReordered: value(STAT_REORDERED),
      framesRefused: value(STAT_REFUSED),
      framesOut: value(STAT_OUT),
      packetLoss: Number.isNaN(loss) ? null : Math.round(loss * 10_000) / 10_000,
      jitterMs: Number.isNaN(jitter) ? null : Math.round(jitter * 10) / 10,
    };
  }

  onTimeout(handler: () => void): void {
    this.timeoutHandler = handler;
    if (this.timedOut && !this.closed) handler(); // it came before anyone listened
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.link().close(this.id);
    this.ring.close();
    this.wakeTones(true);
    this.keysSent();
    this.onClose(this);
  }

  /** The thread that ran the media was replaced: key requests it held are over. */
  keysSent(): void {
    for (const resolve of this.keyWaiters.values()) resolve();
    this.keyWaiters.clear();
  }

  /** The main thread's beat: hands over what the media thread wrote since the last one. */
  deliver(): void {
    if (this.closed) return;
    const { view } = this;
    const written = Atomics.load(view.control, FRAMES_WRITTEN);
    // The writer may be filling the slot after the last one written: keep a slot's margin.
    if (written - this.framesRead > IN_SLOTS - 1) {
      this.framesBehind += written - (IN_SLOTS - 1) - this.framesRead;
      this.framesRead = written - (IN_SLOTS - 1);
    }
    for (; this.framesRead < written && !this.closed; this.framesRead += 1) {
      const receiver = this.receiver;
      if (!receiver) continue;
      const slot = this.framesRead % IN_SLOTS;
      const from = slot * IN_SAMPLES;
      receiver.audio({
        // A copy: receivers (the recorder) may keep a frame past the slot's reuse.
        samples: view.samples.slice(from, from + (view.frameLengths[slot] ?? 0)),
        sampleRate: (view.frameRates[slot] ?? 8000) as SampleRate,
        at: view.frameAt[slot] ?? 0,
      });
    }
    this.readEvents();
    this.ring.hear();
    this.wakeTones(false);
  }

  private readEvents(): void {
    const { view } = this;
    const written = Atomics.load(view.control, EVENTS_WRITTEN);
    if (written - this.eventsRead > EV_SLOTS - 1) this.eventsRead = written - (EV_SLOTS - 1);
    for (; this.eventsRead < written && !this.closed; this.eventsRead += 1) {
      const slot = this.eventsRead % EV_SLOTS;
      const value = view.eventValues[slot] ?? 0;
      switch (view.eventKinds[slot]) {
        case EVENT_DIGIT:
          this.receiver?.dtmf(String.fromCharCode(value), view.eventAt[slot] ?? 0);
          break;
        case EVENT_DTMF_SENT:
          this.keyWaiters.get(value)?.();
          this.keyWaiters.delete(value);
          break;
        case EVENT_TIMEOUT:
          if (!this.timedOut) {
            this.timedOut = true;
            this.timeoutHandler?.();
          }
          break;
      }
    }
  }

  private wakeTones(all: boolean): void {
    if (this.toneWaiters.length === 0) return;
    const played = this.ring.playedMs;
    const waiting: typeof this.toneWaiters = [];
    for (const waiter of this.toneWaiters) {
      if (all || played >= waiter.untilMs) waiter.resolve();
      else waiting.push(waiter);
    }
    this.toneWaiters = waiting;
  }
}
