import type { LegEndReason, MediaLeg, SampleRate } from '../media/index.ts';

// The carrier seam (DESIGN.md sections 1, 4 and 5). A carrier places and receives calls and gives
// each connected call a leg: a media leg (src/media/leg.ts) whose audio the voice session hears
// and speaks into. Who answered (a person or a machine) is not the carrier's to say: the voice
// session decides it from the audio. Carriers know nothing of agents or speech providers.

export type { LegEndReason };

/**
 * Turns as text instead of audio: the simulated carrier's fast path for load tests of what
 * surrounds calls (dialer, slots, webhooks). A leg in text mode carries no frames.
 */
export interface TextLeg {
  /**
   * The far end's next utterance; null once the leg has ended (no more will come). Utterances are
   * queued: one said while nobody listens is returned by the next call.
   */
  listen(signal?: AbortSignal): Promise<string | null>;
  /** Sends what the agent says. Ignored once the leg has ended. */
  say(text: string): Promise<void>;
  /**
   * Who answered. Text carries no audio to detect a machine from, so on this fast path the sim
   * says it; on audio legs the voice session decides from what it hears.
   */
  readonly answeredBy: 'human' | 'machine';
}

/** A connected call. */
export interface CallLeg extends MediaLeg {
  /** Set when the leg carries text turns instead of audio. */
  readonly text?: TextLeg;
  /** Set when the far end follows the transcript live (a WS media client): each line as said. */
  showTranscript?(line: { role: 'bot' | 'human'; text: string }): void;
}

export type DialOutcome =
  | { kind: 'answered'; leg: CallLeg; answeredAt: number }
  | { kind: 'no-answer' }
  | { kind: 'busy' }
  | { kind: 'failed'; reason: string };

export interface DialRequest {
  /** Parley's call id (for the carrier's logs and callbacks). */
  callId: string;
  /** E.164 caller id. */
  from: string;
  /** E.164 number dialed. */
  to: string;
  /** The workspace placing the call (carriers that look up the caller id's trunk need it). */
  workspaceId?: string;
  /** Called once the far end rings. */
  onRinging?: () => void;
  /** Aborting before answer cancels the attempt (the dial resolves `failed`, reason `canceled`). */
  signal?: AbortSignal;
  /**
   * The agent handles voicemail: a carrier that can detect a machine itself (Twilio) does, and
   * tells the leg's `onAnsweredBy`. Others ignore it.
   */
  machineDetection?: boolean;
}

/** A call arriving for one of our numbers, as a carrier offers it to Parley. */
export interface IncomingCall {
  /** The caller (E.164). */
  readonly from: string;
  /** Our number that was called (E.164). */
  readonly to: string;
  /** The workspace the call is for, when the carrier knows it (the sim's API request does). */
  readonly workspaceId?: string;
  /** Picks up: the connected leg. `callId` is Parley's id of the call, for the carrier's logs. */
  answer(callId: string): Promise<CallLeg>;
  /** Turns the call away (a carrier says why as its protocol can: SIP 486, 480 or 500). */
  reject(reason: IncomingRejection): void;
}

/** `busy`: at capacity; `unavailable`: nobody answers this number; `failed`: an error on our side. */
export type IncomingRejection = 'busy' | 'unavailable' | 'failed';

/** What Parley made of an incoming call: the stored call and its status then. */
export interface IncomingTaken {
  callId: string;
  status: string;
}

/**
 * Where a carrier pushes the calls arriving for our numbers. Resolves once the call is stored (and
 * answered, routed or turned away in the background), not when it ends.
 */
export type IncomingHandler = (call: IncomingCall) => Promise<IncomingTaken>;

export interface Carrier {
  /** `sim`, `sip`, `twilio`...: the provider name numbers are imported with. */
  readonly name: string;
  /**
   * The rate of its legs' audio when it is the same on every leg (8000 on telephone carriers);
   * absent when it depends on the call (a WebSocket client's codec). Speech is asked for at it.
   */
  readonly audioRate?: SampleRate;
  dial(request: DialRequest): Promise<DialOutcome>;
  /** Sets where calls arriving for our numbers go (one handler; a carrier without one rejects). */
  onIncoming?(handler: IncomingHandler): void;
}
