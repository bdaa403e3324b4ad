import type { CallControlPort, CalendarPort, MessagingPort } from '../actions/index.ts';
import type { HttpPort } from '../core/index.ts';

// Recorded stand-ins for a simulation's actions (`actions=recorded`, the default): the agent's
// tools run as in a call, and their runs are recorded on the timeline, but nothing leaves Parley:
// no HTTP request, no text message, no booking, no transfer. Each stand-in answers as the real
// system would when all goes well.

/** Custom actions: a 200 with `{"ok": true, "simulated": true}`. */
export const standInHttp: HttpPort = async (request) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ ok: true, simulated: true }),
  truncated: false,
  url: request.url,
});

/** Messages: accepted, not sent. */
export const standInMessaging: MessagingPort = {
  send: async () => ({ id: 'simulated', status: 'simulated' }),
};

const HOUR = 3_600_000;

/** A calendar with a free slot every hour from the next full hour, for a day; bookings succeed. */
export const standInCalendar: CalendarPort = {
  async freeSlots(range) {
    const slots = [];
    const first = Math.ceil(range.startMs / HOUR) * HOUR;
    for (let start = first; start < Math.min(range.endMs, first + 24 * HOUR); start += HOUR) {
      slots.push({ startMs: start, endMs: start + HOUR / 2 });
    }
    return slots;
  },
  book: async (slot) => ({ ok: true, bookingId: `simulated-${slot.startMs}` }),
};

/** Transfers: the human answers. */
export const standInCallControl: CallControlPort = {
  transfer: async () => ({ ok: true }),
};
