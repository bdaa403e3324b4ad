import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

// Assertions on the wire format shared by the API tests (WIRE.md section 1).

export type Loc = (string | number)[];
export type Json = Record<string, unknown>;
export type Payload = InjectOptions['payload'];

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

export function dottedLoc(loc: Loc): string {
  return loc.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join('');
}

/** The exact error body of WIRE.md section 1; returns its `detail`. */
export function expectErrorBody(res: LightMyRequestResponse, status: number, category: string): Json {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as { detail: Json };
  expect(Object.keys(body)).toEqual(['detail']);
  const d = body.detail;
  const allowed = ['status', 'description', 'timestamp', 'request_id', 'category', 'errors'];
  expect(Object.keys(d).filter((k) => !allowed.includes(k))).toEqual([]);
  expect(d.status).toBe('error');
  expect(d.category).toBe(category);
  expect(typeof d.description).toBe('string');
  expect((d.description as string).length).toBeGreaterThan(0);
  expect(d.timestamp).toMatch(ISO);
  expect(Number.isFinite(Date.parse(d.timestamp as string))).toBe(true);
  expect(typeof d.request_id).toBe('string');
  expect(d.request_id).toBe(res.headers['x-request-id']);
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at /); // never a stack trace
  return d;
}

/** A 400 validation error that names `loc` both in the description and in `errors`. */
export function expectFieldError(res: LightMyRequestResponse, loc: Loc): Json {
  const d = expectErrorBody(res, 400, 'validation');
  expect(d.description).toContain(dottedLoc(loc));
  const errors = d.errors as { loc: Loc; msg: string; type: string }[];
  expect(Array.isArray(errors)).toBe(true);
  for (const e of errors) {
    expect(Array.isArray(e.loc)).toBe(true);
    expect(typeof e.msg).toBe('string');
    expect(typeof e.type).toBe('string');
  }
  expect(errors.map((e) => e.loc)).toContainEqual(loc);
  return d;
}

/** A not-found error (404, or 400 where the operation lists no 404) without field errors. */
export function expectNotFound(res: LightMyRequestResponse, status: 400 | 404 = 404): Json {
  const d = expectErrorBody(res, status, 'not_found');
  expect(d.errors).toBeUndefined();
  return d;
}

/** A 200 with the success envelope `{status: "ok", response?}`; returns `response`. */
export function okResponse(res: { statusCode: number; body: string; json: () => unknown }): Json {
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { status: unknown; response: Json };
  expect(body.status).toBe('ok');
  return body.response;
}
