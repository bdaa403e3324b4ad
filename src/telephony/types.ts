// The carrier seam (DESIGN.md sections 1 and 4). A carrier places and receives calls and gives
// each connected call a leg: what the far end says arrives as utterances, what the agent says is
// sent with `say`. This issue runs legs in text mode (turns as text); the voice issue adds audio
// legs on the same shape. Carriers know nothing of agents: the simulated carrier's far end is a
// `Callee` that the composition root builds (src/app.ts), e.g. from the conversation module's
// simulated person.

export type LegEndReason =
  /** The far end hung up. */
  | 'remote_hangup'
  /** We hung up (`hangup()`). */
  | 'local_hangup'
  /** The carrier dropped the call. */
  | 'carrier_failure';

/** A connected call, in text mode. */
export interface CallLeg {
  /** The carrier's id for the call (`call_sid` in records). */
  readonly sid: string;
  /**
   * The far end's next utterance; null once the leg has ended (no more will come). Utterances
   * are queued: one said while nobody listens is returned by the next call.
   */
  listen(signal?: AbortSignal): Promise<string | null>;
  /** Sends what the agent says. Ignored once the leg has ended. */
  say(text: string): Promise<void>;
  /** Ends the call from our side; idempotent. */
  hangup(): Promise<void>;
  /** Resolves when the leg ends, with why. */
  readonly ended: Promise<LegEndReason>;
}

/** What answered: a person, or an answering machine (voicemail greeting then a beep). */
export type AnsweredBy = 'human' | 'machine';

export type DialOutcome =
  | { kind: 'answered'; answeredBy: AnsweredBy; leg: CallLeg; answeredAt: number }
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
  /** Who we expect to reach, for simulated far ends. */
  lead?: { name?: string; variables?: Record<string, string | number | boolean> };
  /** Called once the far end rings. */
  onRinging?: () => void;
  /** Aborting before answer cancels the attempt (the dial resolves `failed`, reason `canceled`). */
  signal?: AbortSignal;
}

export interface IncomingRequest {
  callId: string;
  /** The caller (E.164). */
  from: string;
  /** Our number that was called (E.164). */
  to: string;
  lead?: DialRequest['lead'];
}

export interface Carrier {
  /** `sim`, `sip`, `twilio`...: the provider name numbers are imported with. */
  readonly name: string;
  dial(request: DialRequest): Promise<DialOutcome>;
  /**
   * Answers a call that arrived for one of our numbers (carriers whose calls arrive by other
   * means, such as a SIP INVITE, hand them over as legs the same way).
   */
  incoming?(request: IncomingRequest): CallLeg;
}

// ---- The simulated far end ------------------------------------------------------------------

/** What a simulated callee says next; `hangUp` ends the call after saying it (text may be ''). */
export interface CalleeTurn {
  text: string;
  hangUp: boolean;
}

/** A simulated person at the far end of a `sim` call. */
export interface Callee {
  /** The first words on answering (before the agent speaks); '' to wait silently. */
  opening(): Promise<string>;
  /** The answer to what the agent just said. */
  reply(agentSaid: string, signal?: AbortSignal): Promise<CalleeTurn>;
}

export interface CalleeContext {
  callId: string;
  to: string;
  from: string;
  lead?: DialRequest['lead'];
}

export type CalleeFactory = (context: CalleeContext) => Callee;
