import type { AudioFrame } from './frame.ts';

// A connected call as the voice session sees it (DESIGN.md section 5): the far end's audio comes
// in as 20 ms frames with their capture time, the agent's audio goes out through a playout queue
// that the leg paces at 20 ms, with `clear()` to stop at once and the played position to know
// what the far end really heard. Every carrier's leg (sim, SIP/RTP, WebSocket media) is one of
// these; audio crosses it at SESSION_RATE and the carrier converts at its edge.

export type LegEndReason =
  /** The far end hung up. */
  | 'remote_hangup'
  /** We hung up (`hangup()`). */
  | 'local_hangup'
  /** The carrier dropped the call. */
  | 'carrier_failure';

export interface MediaReceiver {
  /** One frame of the far end's audio, in time order. The frame is only valid during the call. */
  audio(frame: AudioFrame): void;
  /** A key the far end pressed (`0`-`9`, `*`, `#`, `A`-`D`), once per press. */
  dtmf(digit: string, at: number): void;
}

/**
 * What a leg's transport counted of the media it carried, for the call's `quality`. Generic: the
 * WebSocket media leg fills it today, an RTP leg (SIP) can fill it the same way. Counts are of
 * 20 ms frames as they travel (one RTP packet or one WebSocket message each).
 */
export interface LinkStats {
  /** Frames accepted from the far end. */
  framesIn: number;
  /**
   * Frames of the far end's that never played: sequence numbers that never came (network loss),
   * and frames this end dropped (undecodable, or beyond a bounded queue).
   */
  framesLost: number;
  /** Frames that came after their playout time and were dropped. */
  framesLate: number;
  /** Frames that came after a later one, still in time to play. */
  framesReordered: number;
  /** Messages refused as no valid frame for the call (wrong size, format or payload type). */
  framesRefused: number;
  /** Frames sent to the far end. */
  framesOut: number;
  /**
   * The fraction (0..1) of the frames the far end's sequence numbers say were sent that never came
   * (RFC 3550 section 6.4.1); null when the transport numbers nothing (bare payloads).
   */
  packetLoss: number | null;
  /**
   * The far end's interarrival jitter in ms (RFC 3550 section 6.4.1 and appendix A.8); null when
   * the transport carries no media timestamps, or fewer than two frames came.
   */
  jitterMs: number | null;
}

export interface MediaLeg {
  /** The carrier's id for the call (`call_sid` in records). */
  readonly sid: string;
  /** Starts delivering the far end's audio and keys (one receiver; what came before is dropped). */
  receive(receiver: MediaReceiver): void;
  /** Queues the agent's audio for paced playout. Ignored once the leg has ended. */
  play(frame: AudioFrame): void;
  /**
   * Stops playout: queued audio is dropped. With `fadeFrames` > 0 that many more frames are played
   * with a falling volume first (`interruption_fade_out`); with 0 the current frame is the last.
   */
  clear(fadeFrames?: number): void;
  /** Milliseconds of audio played out since the leg began (what the far end has heard). */
  readonly playedMs: number;
  /** Milliseconds of audio queued and not yet played. */
  readonly queuedMs: number;
  /** Resolves once all audio queued so far has played, been cleared, or the leg has ended. */
  drained(): Promise<void>;
  /** Sends keys to the far end (RFC 4733 events or tones, as the carrier does). */
  sendDtmf(digits: string): Promise<void>;
  /** Hands the call to another number; rejects when the carrier cannot. */
  transfer(to: string): Promise<void>;
  /** Ends the call from our side; idempotent. */
  hangup(): Promise<void>;
  /** Resolves when the leg ends, with why. */
  readonly ended: Promise<LegEndReason>;
  /**
   * What the transport counted so far; still readable after the leg ended. Absent on legs whose
   * transport counts nothing (the sim).
   */
  linkStats?(): LinkStats;
  /**
   * Who answered, when the carrier itself detects it (Twilio's machine detection): the listener
   * is called once with the verdict (at once if known). Absent: the voice session decides alone.
   */
  onAnsweredBy?(listener: (who: 'human' | 'machine') => void): void;
}

/** What a leg wrapper changes: the rest is the wrapped leg's own. */
export interface LegOverrides {
  /** Sees (and may change) every frame the far end sends, before the receiver does. */
  audioIn?: (frame: AudioFrame) => AudioFrame;
  play?: (frame: AudioFrame) => void;
  clear?: (fadeFrames: number) => void;
  hangup?: () => Promise<void>;
}

/**
 * A leg that is `leg` but for `overrides` (a recorder, a measuring harness). The played and queued
 * positions stay the wrapped leg's, read live.
 */
export function wrapLeg(leg: MediaLeg, overrides: LegOverrides): MediaLeg {
  const { audioIn, clear } = overrides;
  const linkStats = leg.linkStats?.bind(leg);
  const onAnsweredBy = leg.onAnsweredBy?.bind(leg);
  return {
    get sid() {
      return leg.sid;
    },
    get ended() {
      return leg.ended;
    },
    receive: (receiver) =>
      leg.receive(
        audioIn
          ? {
              audio: (frame) => receiver.audio(audioIn(frame)),
              dtmf: (digit, at) => receiver.dtmf(digit, at),
            }
          : receiver,
      ),
    play: overrides.play ?? ((frame) => leg.play(frame)),
    clear: clear ? (fadeFrames = 0) => clear(fadeFrames) : (fadeFrames) => leg.clear(fadeFrames),
    get playedMs() {
      return leg.playedMs;
    },
    get queuedMs() {
      return leg.queuedMs;
    },
    drained: () => leg.drained(),
    sendDtmf: (digits) => leg.sendDtmf(digits),
    transfer: (to) => leg.transfer(to),
    hangup: overrides.hangup ?? (() => leg.hangup()),
    ...(linkStats ? { linkStats } : {}),
    ...(onAnsweredBy ? { onAnsweredBy } : {}),
  };
}

/**
 * What a leg's `transfer` rejects with when the carrier will not hand calls over at all (a SIP
 * REFER refused, a Twilio update refused, a WebSocket client): Parley can still bridge the call
 * itself. Any other rejection means the hand-over was tried and the target did not take it.
 */
export class TransferRefusedError extends Error {
  override name = 'TransferRefusedError';
}
