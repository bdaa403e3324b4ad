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
}
