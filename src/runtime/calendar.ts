import {
  createBuiltinCalendar,
  type BuiltinCalendarRepo,
  type CalendarPort,
  type WorkingHours,
} from '../actions/index.ts';
import { createCalcomCalendar } from '../providers/index.ts';
import { isValidTimeZone, type HttpPort } from '../core/index.ts';
import type { ActionOf, Repositories } from '../store/index.ts';

// Which calendar a REAL_TIME_BOOKING action books into, from its `calendar` value:
// - absent, null, '' or 'builtin': Parley's builtin calendar of the agent (working hours set with
//   PUT /v2/assistants/{id}/calendar; Monday to Friday 09:00-17:00 in the action's timezone until
//   then), bookings kept in the store;
// - `{provider: 'calcom', api_key, event_type_id, base_url?, length_minutes?}`: Cal.com's API v2.
// Anything else is refused when the action is written (400 naming `calendar`).

export type CalendarRef =
  | { provider: 'builtin' }
  | { provider: 'calcom'; apiKey: string; eventTypeId: number; baseUrl?: string; lengthMinutes?: number };

export type CalendarRefResult =
  { ok: true; ref: CalendarRef } | { ok: false; field: string; message: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseCalendarRef(value: unknown): CalendarRefResult {
  if (value === undefined || value === null || value === '' || value === 'builtin')
    return { ok: true, ref: { provider: 'builtin' } };
  if (typeof value === 'string') {
    return {
      ok: false,
      field: 'calendar',
      message: `calendar "${value}" is unknown: use "builtin" or {"provider": "calcom", "api_key", "event_type_id"}`,
    };
  }
  if (!isObject(value) || (value.provider !== 'calcom' && value.provider !== 'builtin')) {
    return {
      ok: false,
      field: 'calendar.provider',
      message: 'calendar.provider must be "builtin" or "calcom"',
    };
  }
  if (value.provider === 'builtin') return { ok: true, ref: { provider: 'builtin' } };
  if (typeof value.api_key !== 'string' || value.api_key.trim() === '')
    return { ok: false, field: 'calendar.api_key', message: 'calendar.api_key is required for Cal.com' };
  const eventTypeId = value.event_type_id;
  if (typeof eventTypeId !== 'number' || !Number.isInteger(eventTypeId) || eventTypeId <= 0) {
    return {
      ok: false,
      field: 'calendar.event_type_id',
      message: 'calendar.event_type_id must be a positive integer (the Cal.com event type)',
    };
  }
  const ref: CalendarRef = { provider: 'calcom', apiKey: value.api_key, eventTypeId };
  if (value.base_url !== undefined) {
    let url: URL | undefined;
    try {
      url = typeof value.base_url === 'string' ? new URL(value.base_url) : undefined;
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      return { ok: false, field: 'calendar.base_url', message: 'calendar.base_url must be an http(s) URL' };
    ref.baseUrl = url.toString();
  }
  if (value.length_minutes !== undefined) {
    const length = value.length_minutes;
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 5 || length > 480)
      return {
        ok: false,
        field: 'calendar.length_minutes',
        message: 'calendar.length_minutes must be an integer from 5 to 480',
      };
    ref.lengthMinutes = length;
  }
  return { ok: true, ref };
}

/** Monday to Friday, 09:00 to 17:00, in `timeZone`. */
export function defaultWorkingHours(timeZone: string): WorkingHours[] {
  return [1, 2, 3, 4, 5].map((weekday) => ({ weekday, startMinute: 9 * 60, endMinute: 17 * 60, timeZone }));
}

export interface CalendarResolverOptions {
  repos: Pick<Repositories, 'calendar'>;
  /** Outbound fetch for Cal.com (the safe fetch's rules apply to the base URL's host). */
  fetch?: typeof fetch;
}

/** A booking action's calendar, for one agent (the builtin calendar is the agent's own). */
export type CalendarResolver = (action: ActionOf<'REAL_TIME_BOOKING'>, agentId: string) => CalendarPort;

export function calendarResolver(options: CalendarResolverOptions): CalendarResolver {
  return (action, agentId) => {
    const parsed = parseCalendarRef(action.config.calendar);
    if (!parsed.ok) return unavailableCalendar(parsed.message);
    const ref = parsed.ref;
    if (ref.provider === 'calcom') {
      return createCalcomCalendar({
        apiKey: ref.apiKey,
        eventTypeId: ref.eventTypeId,
        ...(ref.baseUrl ? { baseUrl: ref.baseUrl } : {}),
        ...(ref.lengthMinutes ? { lengthMinutes: ref.lengthMinutes } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
    }
    const zone = action.config.timezone;
    const timeZone = isValidTimeZone(zone) ? zone : 'UTC';
    const repo: BuiltinCalendarRepo = {
      async workingHours(workspaceId, agentId) {
        const hours = await options.repos.calendar.workingHours(workspaceId, agentId);
        return hours.length > 0 ? hours : defaultWorkingHours(timeZone);
      },
      bookings: (workspaceId, agentId, fromMs, toMs) =>
        options.repos.calendar.bookings(workspaceId, agentId, fromMs, toMs),
      book: (workspaceId, agentId, booking) => options.repos.calendar.book(workspaceId, agentId, booking),
    };
    return createBuiltinCalendar({ repo, workspaceId: action.workspaceId, agentId });
  };
}

function unavailableCalendar(reason: string): CalendarPort {
  return {
    freeSlots: async () => {
      throw new Error(reason);
    },
    book: async () => ({ ok: false, reason: 'unavailable', detail: reason }),
  };
}

/** A fetch for the Cal.com adapter that goes through the safe outbound HTTP port. */
export function fetchThrough(http: HttpPort): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const response = await http({
      url,
      method: init?.method ?? 'GET',
      headers,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    return new Response(response.status === 204 ? null : response.body, {
      status: response.status,
      headers: response.headers,
    });
  }) as typeof fetch;
}
