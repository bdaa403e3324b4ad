// The calendar seam for REAL_TIME_BOOKING: free slots and bookings, times in milliseconds. It is
// structurally the `CalendarPort` of src/actions, so an adapter here can be passed there as is.
// Adapters: Cal.com (calcom.ts); the builtin calendar lives in actions over the store.

export interface CalendarTimeRange {
  startMs: number;
  endMs: number;
}

export interface CalendarAttendee {
  name: string;
  email: string;
  timeZone?: string;
}

export type CalendarBookingResult =
  | { ok: true; bookingId: string }
  | { ok: false; reason: 'slot_taken' | 'unavailable' | 'invalid'; detail?: string };

export interface Calendar {
  freeSlots(range: CalendarTimeRange, options?: { signal?: AbortSignal }): Promise<CalendarTimeRange[]>;
  book(
    slot: CalendarTimeRange,
    attendee: CalendarAttendee,
    options?: { signal?: AbortSignal },
  ): Promise<CalendarBookingResult>;
}
