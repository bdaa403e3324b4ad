import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local fake of Cal.com's API v2 (GET /v2/slots, POST /v2/bookings) on 127.0.0.1, for tests
// of the Cal.com calendar adapter. It checks the bearer key and `cal-api-version`, answers with
// Cal.com's shapes ({status: 'success', data} or {status: 'error', error: {code, message}}),
// refuses a second booking of the same start, and records every request.

export interface FakeCalcomRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface FakeCalcom {
  readonly url: string;
  readonly apiKey: string;
  readonly requests: FakeCalcomRequest[];
  /** Starts (ISO with offset) the event type offers, each `lengthMinutes` long. */
  slots: string[];
  readonly bookings: Array<{ uid: string; start: string; attendee: unknown }>;
  close(): Promise<void>;
}

export const FAKE_CALCOM_API_KEY = 'cal_live_fake0123456789';
export const FAKE_EVENT_TYPE_ID = 4242;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const error = (code: string, message: string) => ({ status: 'error', error: { code, message } });

export async function startFakeCalcom(
  options: { slots?: string[]; lengthMinutes?: number } = {},
): Promise<FakeCalcom> {
  const lengthMs = (options.lengthMinutes ?? 30) * 60_000;
  const requests: FakeCalcomRequest[] = [];
  const bookings: FakeCalcom['bookings'] = [];
  const state = { slots: options.slots ?? [] };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    let body: unknown = undefined;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return send(res, 400, error('BAD_REQUEST', 'invalid JSON'));
    }
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${FAKE_CALCOM_API_KEY}`)
      return send(res, 401, error('UNAUTHORIZED', 'Invalid API key'));
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'GET' && url.pathname === '/v2/slots') {
      if (req.headers['cal-api-version'] !== '2024-09-04')
        return send(res, 400, error('BAD_REQUEST', 'cal-api-version 2024-09-04 required'));
      if (url.searchParams.get('eventTypeId') !== String(FAKE_EVENT_TYPE_ID))
        return send(res, 404, error('NOT_FOUND', 'Event type not found'));
      const start = Date.parse(url.searchParams.get('start') ?? '');
      const end = Date.parse(url.searchParams.get('end') ?? '');
      if (!Number.isFinite(start) || !Number.isFinite(end))
        return send(res, 400, error('BAD_REQUEST', 'start and end are required'));
      const range = url.searchParams.get('format') === 'range';
      const data: Record<string, unknown[]> = {};
      for (const s of state.slots) {
        const ms = Date.parse(s);
        if (ms < start || ms > end) continue;
        if (bookings.some((b) => Date.parse(b.start) === ms)) continue;
        const day = s.slice(0, 10);
        const slotEnd = new Date(ms + lengthMs).toISOString();
        (data[day] ??= []).push(range ? { start: s, end: slotEnd } : { start: s });
      }
      return send(res, 200, { status: 'success', data });
    }
    if (req.method === 'POST' && url.pathname === '/v2/bookings') {
      if (req.headers['cal-api-version'] !== '2024-08-13')
        return send(res, 400, error('BAD_REQUEST', 'cal-api-version 2024-08-13 required'));
      const b = body as {
        start?: unknown;
        eventTypeId?: unknown;
        attendee?: { name?: unknown; email?: unknown };
      };
      if (
        typeof b?.start !== 'string' ||
        b.eventTypeId !== FAKE_EVENT_TYPE_ID ||
        typeof b.attendee?.email !== 'string'
      )
        return send(res, 400, error('BAD_REQUEST', 'start, eventTypeId and attendee are required'));
      const ms = Date.parse(b.start);
      if (!state.slots.some((s) => Date.parse(s) === ms))
        return send(
          res,
          400,
          error('BAD_REQUEST', 'User either already has booking at this time or is not available'),
        );
      if (bookings.some((x) => Date.parse(x.start) === ms))
        return send(res, 409, error('CONFLICT', 'This time slot is already booked'));
      const uid = `bk_${bookings.length + 1}`;
      bookings.push({ uid, start: b.start, attendee: b.attendee });
      return send(res, 201, {
        status: 'success',
        data: { id: bookings.length, uid, start: new Date(ms).toISOString(), status: 'accepted' },
      });
    }
    return send(res, 404, error('NOT_FOUND', 'Not found'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, error('INTERNAL', 'fake failed')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: FAKE_CALCOM_API_KEY,
    requests,
    bookings,
    get slots() {
      return state.slots;
    },
    set slots(value: string[]) {
      state.slots = value;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
