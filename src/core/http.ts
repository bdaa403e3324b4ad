import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { ParleyError } from './errors.ts';

// Outbound HTTP for actions, webhooks and web sources (DESIGN.md section 7): http/https only; every address a host
// resolves to is checked at connect time (the check sits in the socket's `lookup`, so a DNS
// answer cannot change between check and connect) and IP literals before any connection;
// loopback, private, link-local, CGNAT, unique-local, unspecified and similar addresses are
// refused unless `allowPrivateNetwork`. Redirects are followed by hand, each hop checked again;
// a hop to another origin carries none of the caller's headers but a safe few (see
// CROSS_ORIGIN_REDIRECT_HEADERS).
// A timeout covers the whole exchange; the body is cut at a size cap.

export interface HttpRequest {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Overrides the port's default cap for this request. */
  maxBytes?: number;
  /**
   * Headers of this request that are no secret and may follow a redirect to another origin (a
   * webhook's signature: it proves this body only). Every other header stops at the origin.
   */
  keepAcrossOrigins?: readonly string[];
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as UTF-8 text, at most the cap's bytes. */
  body: string;
  /** The same body as bytes (binary answers such as a PDF); set by the safe fetch. */
  bytes?: Buffer;
  truncated: boolean;
  /** The URL that answered (after redirects). */
  url: string;
}

/** The port actions send HTTP through (fetch-like; the engine passes one in). */
export type HttpPort = (request: HttpRequest) => Promise<HttpResponse>;

export interface SafeFetchOptions {
  allowPrivateNetwork?: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** For tests: replaces node:dns lookup. */
  lookup?: (hostname: string) => Promise<{ address: string; family: number }[]>;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;

export class OutboundHttpError extends ParleyError {
  override name = 'OutboundHttpError';
  constructor(
    description: string,
    readonly reason: 'blocked_address' | 'bad_url' | 'timeout' | 'network' | 'too_many_redirects',
    cause?: unknown,
  ) {
    super(description, {
      code: 'outbound_http_failed',
      status: 502,
      category: 'critical',
      retryable: reason === 'timeout' || reason === 'network',
      cause,
    });
  }
}

function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function blockedV4(address: string): boolean {
  const ip = ipv4ToInt(address);
  return BLOCKED_V4.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    const start = ipv4ToInt(base);
    return ip >= start && ip < start + size;
  });
}

/** Expands an IPv6 address into its eight 16-bit groups. */
function ipv6Groups(address: string): number[] | null {
  let text = address.split('%')[0] ?? '';
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const n = ipv4ToInt(v4[1]);
    text = text.slice(0, -v4[1].length) + `${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const a = parse(head);
  const b = parse(tail);
  const groups = text.includes('::')
    ? [...a, ...new Array<number>(8 - a.length - b.length).fill(0), ...b]
    : a;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : null;
}

/** True for addresses an action must not reach unless private networks are allowed. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blockedV4(address);
  if (family !== 6) return true;
  const g = ipv6Groups(address);
  if (!g) return true;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroPrefix && g5 === 0 && g6 === 0 && (g7 === 0 || g7 === 1)) return true; // :: and ::1
  const v4 = `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`;
  if (zeroPrefix && g5 === 0xffff) return blockedV4(v4); // IPv4-mapped
  if (zeroPrefix && g5 === 0) return blockedV4(v4); // IPv4-compatible (deprecated)
  if (g0 === 0x64 && g1 === 0xff9b) return blockedV4(v4); // NAT64
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  if (g0 === 0x2001 && g1 === 0x0db8) return true; // documentation
  return false;
}

function blockedError(host: string, address: string): OutboundHttpError {
  return new OutboundHttpError(
    `refusing to connect to ${host} (${address}): private, loopback and link-local addresses are not allowed`,
    'blocked_address',
  );
}

/**
 * The caller's headers kept when a redirect leads to another origin (scheme, host or port
 * differs): the fetch standard's CORS-safelisted request headers and `user-agent`. Every other
 * header the caller set is dropped, whether or not it looks like a credential (`Authorization`,
 * `Cookie`, but also `X-Api-Key`, a custom action's configured headers...): only the caller knows
 * which of its headers are secrets, so none of them follows the request to a host it did not name.
 */
export const CROSS_ORIGIN_REDIRECT_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
]);

/** The headers of the next hop of a redirect (see CROSS_ORIGIN_REDIRECT_HEADERS). */
function headersForRedirect(
  request: HttpRequest,
  crossOrigin: boolean,
  toGet: boolean,
): Record<string, string> {
  const next: Record<string, string> = {};
  const kept = new Set((request.keepAcrossOrigins ?? []).map((h) => h.toLowerCase()));
  for (const [key, value] of Object.entries(request.headers ?? {})) {
    const name = key.toLowerCase();
    if (crossOrigin && !CROSS_ORIGIN_REDIRECT_HEADERS.has(name) && !kept.has(name)) continue;
    // A redirect that turns the request into a GET has no body to describe.
    if (toGet && (name === 'content-type' || name === 'content-length')) continue;
    next[key] = value;
  }
  return next;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

export function createSafeFetch(options: SafeFetchOptions = {}): HttpPort {
  const allow = options.allowPrivateNetwork ?? false;
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const defaultMax = options.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const resolve =
    options.lookup ?? ((hostname: string) => dns.promises.lookup(hostname, { all: true, verbatim: true }));

  const lookup = (hostname: string, opts: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const bad = allow ? undefined : addresses.find((a) => isBlockedAddress(a.address));
        const first = addresses[0];
        if (bad) callback(blockedError(hostname, bad.address), '');
        else if (!first) callback(new OutboundHttpError(`${hostname} did not resolve`, 'network'), '');
        else if (opts.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };

  const once = (url: URL, request: HttpRequest, signal: AbortSignal, maxBytes: number) =>
    new Promise<HttpResponse>((resolvePromise, reject) => {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (net.isIP(host) && !allow && isBlockedAddress(host)) {
        reject(blockedError(host, host));
        return;
      }
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(url, {
        method: request.method,
        headers: request.headers,
        lookup: lookup as unknown as net.LookupFunction,
        signal,
      });
      req.on('error', (err) => reject(err));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const headers: Record<string, string> = {};
        for (const [key, value] of Object.entries(res.headers)) {
          if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
        }
        const done = () => {
          const bytes = Buffer.concat(chunks);
          resolvePromise({
            status: res.statusCode ?? 0,
            headers,
            body: bytes.toString('utf8'),
            bytes,
            truncated,
            url: url.toString(),
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          if (size + chunk.length > maxBytes) {
            chunks.push(chunk.subarray(0, maxBytes - size));
            size = maxBytes;
            truncated = true;
            done();
            res.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', done);
        res.on('error', (err) => reject(err));
        res.on('aborted', () => reject(new Error('the response was cut off')));
      });
      if (request.body !== undefined) req.write(request.body);
      req.end();
    });

  return async (request) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const maxBytes = request.maxBytes ?? defaultMax;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new OutboundHttpError(`not a valid URL: ${request.url}`, 'bad_url');
    }
    let current: HttpRequest = request;
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new OutboundHttpError(`only http and https URLs are allowed, not ${url.protocol}`, 'bad_url');
      }
      let response: HttpResponse;
      try {
        response = await once(url, current, signal, maxBytes);
      } catch (err) {
        if (err instanceof OutboundHttpError) throw err;
        if (signal.aborted) {
          const timedOut = timeout.aborted;
          throw new OutboundHttpError(
            timedOut ? `no answer within ${timeoutMs} ms` : 'the request was aborted',
            timedOut ? 'timeout' : 'network',
            err,
          );
        }
        const cause = err as NodeJS.ErrnoException;
        if (cause.cause instanceof OutboundHttpError) throw cause.cause;
        throw new OutboundHttpError(`the request failed: ${cause.code ?? cause.message}`, 'network', err);
      }
      const location = response.headers.location;
      if (![301, 302, 303, 307, 308].includes(response.status) || location === undefined) return response;
      if (hop >= maxRedirects) throw new OutboundHttpError('too many redirects', 'too_many_redirects');
      const next = new URL(location, url);
      const toGet =
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && current.method === 'POST');
      const headers = headersForRedirect(current, next.origin !== url.origin, toGet);
      current = {
        ...current,
        method: toGet ? 'GET' : current.method,
        headers,
        body: toGet ? undefined : current.body,
      };
      url = next;
    }
  };
}
