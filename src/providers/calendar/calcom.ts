import type { Calendar, CalendarBookingResult, CalendarTimeRange } from './types.ts';

// Cal.com's public API v2: `GET /v2/slots?eventTypeId&start&end&format=range` for free slots and
// `POST /v2/bookings` to book, with `Authorization: Bearer <API key>` and the `cal-api-version`
// header each endpoint requires. Times go out as ISO (UTC) and come back as ISO with offsets.

export const CALCOM_DEFAULT_BASE_URL = 'https://api.cal.com';
export const CALCOM_SLOTS_API_VERSION = '2024-09-04';
export const CALCOM_BOOKINGS_API_VERSION = '2024-08-13';

export interface CalcomOptions {
  apiKey: string;
  eventTypeId: number;
  baseUrl?: string;
  /** Used when a slot comes without an end; default 30. */
  lengthMinutes?: number;
  /** Per request; default 10 000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class CalcomError extends Error {
  override name = 'CalcomError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function errorMessage(body: unknown): string {
  if (body && typeof body === 'object') {
    const error = (body as { error?: { message?: unknown } }).error;
    if (error && typeof error.message === 'string') return error.message;
    const message = (body as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return '';
}

export function createCalcomCalendar(options: CalcomOptions): Calendar {
  const base = (options.baseUrl ?? CALCOM_DEFAULT_BASE_URL).replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const lengthMs = (options.lengthMinutes ?? 30) * 60_000;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(
    path: string,
    init: { method: 'GET' | 'POST'; version: string; body?: unknown; signal?: AbortSignal },
  ): Promise<{ status: number; body: unknown }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await doFetch(`${base}${path}`, {
      method: init.method,
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        'cal-api-version': init.version,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body };
  }

  return {
    async freeSlots(range, opts) {
      const query = new URLSearchParams({
        eventTypeId: String(options.eventTypeId),
        start: new Date(range.startMs).toISOString(),
        end: new Date(range.endMs).toISOString(),
        format: 'range',
      });
      const { status, body } = await call(`/v2/slots?${query}`, {
        method: 'GET',
        version: CALCOM_SLOTS_API_VERSION,
        signal: opts?.signal,
      });
      if (status !== 200) throw new CalcomError(`Cal.com answered ${status}: ${errorMessage(body)}`, status);
      const data = (body as { data?: unknown }).data;
      if (!data || typeof data !== 'object') throw new CalcomError('Cal.com sent no slots', status);
      const slots: CalendarTimeRange[] = [];
      for (const day of Object.values(data as Record<string, unknown>)) {
        if (!Array.isArray(day)) continue;
        for (const item of day as Array<{ start?: unknown; end?: unknown }>) {
          const startMs = typeof item.start === 'string' ? Date.parse(item.start) : NaN;
          if (!Number.isFinite(startMs)) continue;
          const endParsed = typeof item.end === 'string' ? Date.parse(item.end) : NaN;
          const endMs = Number.isFinite(endParsed) ? endParsed : startMs + lengthMs;
          if (startMs >= range.startMs && startMs < range.endMs) slots.push({ startMs, endMs });
        }
      }
      return slots.sort((a, b) => a.startMs - b.startMs);
    },

    async book(slot, attendee, opts): Promise<CalendarBookingResult> {
      let answer;
      try {
        answer = await call('/v2/bookings', {
          method: 'POST',
          version: CALCOM_BOOKINGS_API_VERSION,
          signal: opts?.signal,
          body: {
            start: new Date(slot.startMs).toISOString(),
            eventTypeId: options.eventTypeId,
            attendee: { name: attendee.name, email: attendee.email, timeZone: attendee.timeZone ?? 'UTC' },
          },
        });
      } catch (err) {
        return { ok: false, reason: 'unavailable', detail: err instanceof Error ? err.message : String(err) };
      }
      const { status, body } = answer;
      if (status === 200 || status === 201) {
        const data = (body as { data?: { id?: unknown; uid?: unknown } }).data;
        const id = data?.uid ?? data?.id;
        if (typeof id === 'string' || typeof id === 'number') return { ok: true, bookingId: String(id) };
        return { ok: false, reason: 'unavailable', detail: 'Cal.com sent no booking id' };
      }
      const detail = errorMessage(body) || `Cal.com answered ${status}`;
      if (status === 409 || (status === 400 && /not available|already|booked|taken/i.test(detail)))
        return { ok: false, reason: 'slot_taken', detail };
      if (status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 429)
        return { ok: false, reason: 'invalid', detail };
      return { ok: false, reason: 'unavailable', detail };
    },
  };
}
