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

export type TransferResult =
  { ok: true; humanConnectedAt?: number } | { ok: false; reason: TransferFailedReason };

export interface CallControlPort {
  transfer(request: { to: string; mode: TransferMode; timeoutMs: number }): Promise<TransferResult>;
}

/** Chats cannot be transferred: every attempt fails with `transfer_method_unsupported`. */
export const chatCallControl: CallControlPort = {
  transfer: async () => ({ ok: false, reason: 'transfer_method_unsupported' }),
};
