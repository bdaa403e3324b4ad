// The effects action kinds need, as ports (`actions` imports only `core`, DESIGN.md section 2).
// Adapters live elsewhere and are passed in: the builtin calendar (calendar-builtin.ts over a
// store repository), Cal.com (providers), messaging (providers' `Messaging` fits
// `MessagingPort` as is), call control (the voice transport; `chatCallControl` for chats).

// ---- Calendar -------------------------------------------------------------------------------

/** A time range in milliseconds since the epoch, `[startMs, endMs)`. */
export interface TimeRange {
  startMs: number;
  endMs: number;
}

export interface Attendee {
  name: string;
  email: string;
  /** IANA zone the attendee is in (for the confirmation). */
  timeZone?: string;
}

export type BookingResult =
  | { ok: true; bookingId: string }
  /** `slot_taken`: someone booked it first; `unavailable`: the calendar could not be reached. */
  | { ok: false; reason: 'slot_taken' | 'unavailable' | 'invalid'; detail?: string };

export interface CalendarPort {
  /** Free slots that start within `range`, in ascending order. */
  freeSlots(range: TimeRange, options?: { signal?: AbortSignal }): Promise<TimeRange[]>;
  book(slot: TimeRange, attendee: Attendee, options?: { signal?: AbortSignal }): Promise<BookingResult>;
}

// ---- Messaging ------------------------------------------------------------------------------

export type MessagingChannel = 'sms' | 'whatsapp';

/** Structurally the providers' `OutboundMessage`. */
export interface OutboundMessage {
  channel: MessagingChannel;
  from: string;
  to: string;
  body?: string;
  template?: { contentSid: string; variables?: Record<string, string> };
}

/** Structurally compatible with providers' `Messaging.send`. */
export interface MessagingPort {
  send(message: OutboundMessage, options?: { signal?: AbortSignal }): Promise<{ id: string; status: string }>;
}

export interface ReplyQuery {
  channel: MessagingChannel;
  /** The lead's number (the reply comes from it). */
  from: string;
  /** Our number (the reply goes to it). */
  to: string;
  /** Only replies received at or after this time count. */
  sinceMs: number;
}

/** Inbound replies: resolves with the first reply matching the query; rejects when aborted. */
export interface ReplyPort {
  waitForReply(query: ReplyQuery, signal: AbortSignal): Promise<{ body: string }>;
}

// ---- Call control ---------------------------------------------------------------------------

/** The transfer failure causes of voice-agent-api.md (Events, `failed_reason`). */
export const TRANSFER_FAILED_REASONS = [
  'ivr_detected',
  'number_not_found',
  'number_incomplete',
  'destination_unavailable',
  'rejected_by_destination',
  'transfer_blocked_by_carrier',
  'carrier_unavailable',
  'routing_loop',
  'media_negotiation_failed',
  'transfer_method_unsupported',
] as const;

export type TransferFailedReason = (typeof TRANSFER_FAILED_REASONS)[number];

export type TransferMode = 'cold' | 'warm';

/**
 * How a transfer went, for the call record: `refer` (SIP REFER), `carrier` (the carrier's own
 * hand-over: Twilio's <Dial>, the sim's), `bridge` (Parley dialed the target and relays the audio).
 * Times in ms; absent when the step never happened.
 */
export interface TransferReport {
  method: 'refer' | 'carrier' | 'bridge';
  /** The carrier refused to hand the call over, so Parley bridged it instead. */
  fellBackFrom?: 'refer' | 'carrier';
  dialedAt?: number;
  answeredAt?: number;
  bridgedAt?: number;
  /** When the bridged call ended, and whose hang-up ended it. */
  endedAt?: number;
  endedBy?: 'caller' | 'target' | 'call_ended';
  /** Why it failed, in words (a SIP status, the target hung up during the briefing...). */
  detail?: string;
}

export type TransferResult =
  | {
      ok: true;
      humanConnectedAt?: number;
      report?: TransferReport;
      /** A bridged transfer: resolves with the final report once the bridged call ends. */
      ended?: Promise<TransferReport>;
    }
  | { ok: false; reason: TransferFailedReason; report?: TransferReport };

export interface TransferRequest {
  to: string;
  mode: TransferMode;
  timeoutMs: number;
  /** Keys sent once the target answers (`w`/`p`/`,` pause 0.5 s, `W`/`P` 1 s). */
  digits?: string;
  /** What the target hears before the caller joins (warm): the message or a summary. */
  briefing?: () => Promise<string>;
  /** The caller hears hold music meanwhile (`enable_background_music`); else silence. */
  holdMusic?: boolean;
}

export interface CallControlPort {
  transfer(request: TransferRequest): Promise<TransferResult>;
}

/** Chats cannot be transferred: every attempt fails with `transfer_method_unsupported`. */
export const chatCallControl: CallControlPort = {
  transfer: async () => ({ ok: false, reason: 'transfer_method_unsupported' }),
};
