import {
  FRAME_MS,
  Resampler,
  SESSION_RATE,
  TransferRefusedError,
  dtmfTones,
  mulawDecode,
  mulawEncode,
  samplesPerFrame,
  type AudioFrame,
  type LinkStats,
  type MediaReceiver,
} from '../../media/index.ts';
import { FrameRing, sendBeat, type FrameTick, type FrameTicker } from '../pacing/index.ts';
import type { CallLeg, LegEndReason } from '../types.ts';
import { clearMessage, markMessage, mediaMessage, type TwilioStreamEvent } from './stream-protocol.ts';

// The leg of a Twilio call: the far end is Twilio's Media Stream (8 kHz mu-law, base64 JSON
// messages). Our frames leave on the carrier's 20 ms beat as `media` messages, with a `mark`
// after every few frames and at the end of each talkspurt. Twilio buffers what we send and echoes
// a mark once the audio before it has played, so the played position is what those echoes say,
// never what merely left: barge-in keeps in the transcript only what the caller heard. clear()
// sends `clear` (Twilio drops its buffer and echoes the pending marks, which count for nothing).
// The caller's audio is handed over as it comes (Twilio sends 20 ms chunks steadily, silence
// included); when the stream stalls, the beat fills in silence so the session keeps its beat.

export const TWILIO_RATE = 8000;
const FRAME_8K = samplesPerFrame(TWILIO_RATE);
/**
 * Twilio sends the caller's audio continuously (silence included), so a gap is jitter, not quiet:
 * silence fills in only when nothing came for this long (a stalled stream), never between frames
 * that come a little late, which would cut into the caller's words.
 */
const SILENCE_AFTER_MS = 10 * FRAME_MS;
/** A mark after this many frames of a talkspurt: the played position moves in 100 ms steps. */
export const MARK_EVERY_FRAMES = 5;

/** What the leg needs of a stream socket: text messages both ways and its end. */
export interface TwilioStreamSocket {
  send(data: string): void;
  close(code: number, reason: string): void;
}

/** The REST side of a call, which the carrier does for the leg. */
export interface TwilioCallControl {
  /** Ends the call (Status=completed). */
  hangup(): Promise<void>;
  /** Updates the call with `<Dial>to</Dial>`: Twilio ends the stream and dials. */
  transfer(to: string): Promise<void>;
}

export interface TwilioLegOptions {
  callSid: string;
  streamSid: string;
  socket: TwilioStreamSocket;
  control: TwilioCallControl;
  ticker: FrameTicker;
  now: () => number;
  markEveryFrames?: number;
}

export interface BoundTwilioLeg {
  leg: CallLeg;
  /** A message from Twilio after `start`. */
  message(event: TwilioStreamEvent): void;
  /** The socket is gone. */
  closed(): void;
  /** Twilio's machine detection decided who answered. */
  answeredBy(who: 'human' | 'machine'): void;
}

interface PendingMark {
  name: string;
  ms: number;
}

export function createTwilioLeg(options: TwilioLegOptions): BoundTwilioLeg {
  const { socket, streamSid, ticker, now, control } = options;
  const markEvery = options.markEveryFrames ?? MARK_EVERY_FRAMES;
  const ring = new FrameRing();
  const down = new Resampler(SESSION_RATE, TWILIO_RATE);
  const downOut = new Int16Array(down.maxOutput(samplesPerFrame(SESSION_RATE)));
  let receiver: MediaReceiver | null = null;
  let endReason: LegEndReason | null = null;
  let resolveEnded: (reason: LegEndReason) => void = () => {};
  const ended = new Promise<LegEndReason>((resolve) => (resolveEnded = resolve));
  /** Audio sent since the last mark (ms, frames). */
  let unmarkedMs = 0;
  let unmarkedFrames = 0;
  let pending: PendingMark[] = [];
  let markSeq = 0;
  let confirmedMs = 0;
  const idleWaiters: (() => void)[] = [];
  let lastArrival: number | null = null;
  /** Caller audio decoded but short of a whole frame. */
  let partial = new Int16Array(0);
  const stats = { framesIn: 0, framesOut: 0, framesRefused: 0 };
  let verdict: 'human' | 'machine' | null = null;
  let transferring = false;
  const verdictListeners: ((who: 'human' | 'machine') => void)[] = [];

  const unconfirmedMs = () => unmarkedMs + pending.reduce((sum, mark) => sum + mark.ms, 0);
  const idle = () => ring.idle && unconfirmedMs() === 0;
  const wake = () => {
    if (idleWaiters.length > 0 && (idle() || endReason))
      for (const resolve of idleWaiters.splice(0)) resolve();
  };

  function send(data: string) {
    if (!endReason) socket.send(data);
  }

  function mark() {
    if (unmarkedMs === 0) return;
    markSeq += 1;
    const name = `parley-${markSeq}`;
    pending.push({ name, ms: unmarkedMs });
    unmarkedMs = 0;
    unmarkedFrames = 0;
    send(markMessage(streamSid, name));
  }

  function sendFrame(frame: AudioFrame) {
    const written = down.process(frame.samples, downOut);
    send(mediaMessage(streamSid, Buffer.from(mulawEncode(downOut.subarray(0, written))).toString('base64')));
    stats.framesOut += 1;
    unmarkedMs += (frame.samples.length * 1000) / SESSION_RATE;
    unmarkedFrames += 1;
    if (unmarkedFrames >= markEvery) mark();
  }

  const beat: FrameTick = {
    send(at) {
      if (endReason) return;
      sendBeat(ring.view, at, now());
      ring.hear((sent) => {
        if (sent.frame) sendFrame(sent.frame);
        else mark(); // the talkspurt ended: a mark closes it
      });
      wake();
    },
    deliver(at, caughtUp) {
      if (endReason) return;
      if (lastArrival !== null && at - lastArrival < SILENCE_AFTER_MS) return;
      // Caught up after our event loop stalled: Twilio's frames of that time may be unread yet.
      if (caughtUp) return;
      receiver?.audio({ samples: new Int16Array(FRAME_8K), sampleRate: TWILIO_RATE, at });
    },
  };
  ticker.add(beat);

  function end(reason: LegEndReason) {
    if (endReason) return;
    endReason = reason;
    ticker.delete(beat);
    ring.close();
    wake();
    resolveEnded(reason);
  }

  function audioIn(payload: string) {
    const codes = Buffer.from(payload, 'base64');
    if (codes.length === 0) {
      stats.framesRefused += 1;
      return;
    }
    const decoded = mulawDecode(codes);
    let samples = decoded;
    if (partial.length > 0) {
      samples = new Int16Array(partial.length + decoded.length);
      samples.set(partial);
      samples.set(decoded, partial.length);
    }
    const at = now();
    lastArrival = at;
    let from = 0;
    for (; from + FRAME_8K <= samples.length; from += FRAME_8K) {
      stats.framesIn += 1;
      receiver?.audio({ samples: samples.slice(from, from + FRAME_8K), sampleRate: TWILIO_RATE, at });
      if (endReason) return;
    }
    partial = samples.slice(from);
  }

  function markEcho(name: string) {
    const index = pending.findIndex((m) => m.name === name);
    if (index < 0) return; // a mark of audio that was cleared: it never played
    for (const played of pending.splice(0, index + 1)) confirmedMs += played.ms;
    wake();
  }

  const leg: CallLeg = {
    sid: options.callSid,
    ended,
    receive(next) {
      receiver = next;
    },
    play(frame) {
      if (!endReason) ring.play(frame);
    },
    clear(fadeFrames = 0) {
      if (endReason) return;
      ring.clear(fadeFrames);
      // What Twilio holds and has not confirmed is dropped there: it never counts as played.
      send(clearMessage(streamSid));
      pending = [];
      unmarkedMs = 0;
      unmarkedFrames = 0;
      wake();
    },
    get playedMs() {
      return confirmedMs;
    },
    get queuedMs() {
      return ring.queuedMs + unconfirmedMs();
    },
    drained() {
      if (endReason || idle()) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    async sendDtmf(digits) {
      // In-band tones in the stream: Media Streams carries no key events to Twilio.
      if (endReason || digits === '') return;
      const tones = dtmfTones(digits, { sampleRate: SESSION_RATE });
      leg.play({ samples: tones, sampleRate: SESSION_RATE, at: now() });
      await leg.drained();
    },
    async transfer(to) {
      if (endReason) throw new Error('the call has ended');
      // Twilio may stop the stream before it answers the update: that end is ours.
      transferring = true;
      try {
        await control.transfer(to);
      } catch (err) {
        transferring = false;
        throw new TransferRefusedError(
          `Twilio refused the transfer: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      end('local_hangup');
      socket.close(1000, 'transferred');
    },
    async hangup() {
      if (endReason) return;
      end('local_hangup');
      socket.close(1000, 'call ended');
      await control.hangup();
    },
    onAnsweredBy(listener) {
      if (verdict) listener(verdict);
      else verdictListeners.push(listener);
    },
    linkStats(): LinkStats {
      return {
        framesIn: stats.framesIn,
        framesLost: 0,
        framesLate: 0,
        framesReordered: 0,
        framesRefused: stats.framesRefused,
        framesOut: stats.framesOut,
        packetLoss: null,
        jitterMs: null,
      };
    },
  };

  return {
    leg,
    message(event) {
      if (endReason) return;
      switch (event.event) {
        case 'media':
          if (event.track === 'inbound') audioIn(event.payload);
          return;
        case 'dtmf':
          receiver?.dtmf(event.digit, now());
          return;
        case 'mark':
          markEcho(event.name);
          return;
        case 'stop':
          end(transferring ? 'local_hangup' : 'remote_hangup');
          return;
        default:
          return;
      }
    },
    closed() {
      end(transferring ? 'local_hangup' : 'remote_hangup');
    },
    answeredBy(who) {
      if (verdict || endReason) return;
      verdict = who;
      for (const listener of verdictListeners.splice(0)) listener(who);
    },
  };
}
