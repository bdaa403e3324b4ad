import { SipHeaders } from './headers.ts';

// SIP messages (RFC 3261 section 7): parsed from the bytes a transport received, written back to
// bytes. Parsing never throws: a message that cannot be read is an error saying why, with what
// could be read of it (enough, for a request, to answer 400 when its Via, Call-ID, From, To and
// CSeq are there). Limits keep a hostile peer from making us hold or scan much.

export interface SipRequest {
  readonly kind: 'request';
  method: string;
  uri: string;
  headers: SipHeaders;
  body: string;
}

export interface SipResponse {
  readonly kind: 'response';
  status: number;
  reason: string;
  headers: SipHeaders;
  body: string;
}

export type SipMessage = SipRequest | SipResponse;

/** The largest message accepted (UDP carries one datagram; TCP framing refuses bigger ones). */
export const MAX_MESSAGE_BYTES = 16 * 1024;
/** The longest header line accepted. */
export const MAX_HEADER_LINE = 4 * 1024;
/** The most header lines accepted. */
export const MAX_HEADER_LINES = 100;

export type SipParseError =
  | 'too_large'
  | 'bad_start_line'
  | 'bad_header'
  | 'header_too_long'
  | 'too_many_headers'
  | 'bad_content_length'
  | 'missing_header'
  | 'bad_cseq'
  | 'not_text';

export type SipParseResult =
  | { ok: true; message: SipMessage }
  /** `partial` is set when the start line and headers were read (a request can be answered 400). */
  | { ok: false; error: SipParseError; detail: string; partial?: SipMessage };

const METHOD = /^[A-Za-z]+$/;
const REQUEST_LINE = /^([A-Za-z]+) (\S+) SIP\/2\.0$/;
const STATUS_LINE = /^SIP\/2\.0 ([1-6]\d\d) ?(.*)$/;
const REQUIRED = ['via', 'from', 'to', 'call-id', 'cseq'] as const;

export function parseSipMessage(bytes: Uint8Array): SipParseResult {
  if (bytes.length > MAX_MESSAGE_BYTES)
    return { ok: false, error: 'too_large', detail: `${bytes.length} bytes` };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  if (text.includes('\u0000')) return { ok: false, error: 'not_text', detail: 'NUL byte' };
  let headEnd = text.indexOf('\r\n\r\n');
  let sep = 4;
  if (headEnd < 0) {
    // Some senders use bare LF; accept it as RFC 3261 section 7.5 suggests being lenient.
    headEnd = text.indexOf('\n\n');
    sep = 2;
  }
  const head = headEnd < 0 ? text : text.slice(0, headEnd);
  const rest = headEnd < 0 ? '' : text.slice(headEnd + sep);
  // Unfold continuation lines (a line starting with white space continues the one before).
  const lines = head.split(/\r?\n/).reduce<string[]>((acc, line) => {
    if (/^[ \t]/.test(line) && acc.length > 1) acc[acc.length - 1] += ` ${line.trim()}`;
    else acc.push(line);
    return acc;
  }, []);
  // Leading empty lines before the start line are keep-alives or noise (RFC 3261 section 7.5).
  while (lines.length > 0 && lines[0] === '') lines.shift();
  const startLine = lines.shift() ?? '';
  const request = REQUEST_LINE.exec(startLine);
  const status = request ? null : STATUS_LINE.exec(startLine);
  if (!request && !status) return { ok: false, error: 'bad_start_line', detail: startLine.slice(0, 80) };
  if (lines.length > MAX_HEADER_LINES)
    return { ok: false, error: 'too_many_headers', detail: `${lines.length}` };

  const headers = new SipHeaders();
  let badHeader: string | null = null;
  for (const line of lines) {
    if (line.length > MAX_HEADER_LINE)
      return { ok: false, error: 'header_too_long', detail: line.slice(0, 40) };
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!name || !/^[A-Za-z0-9!%*_+`'~.-]+$/.test(name)) {
      badHeader ??= line.slice(0, 40);
      continue;
    }
    headers.append(name, line.slice(colon + 1).trim());
  }
  const message: SipMessage = request
    ? { kind: 'request', method: (request[1] ?? '').toUpperCase(), uri: request[2] ?? '', headers, body: '' }
    : { kind: 'response', status: Number(status?.[1]), reason: status?.[2] ?? '', headers, body: '' };
  const fail = (error: SipParseError, detail: string): SipParseResult => ({
    ok: false,
    error,
    detail,
    partial: message,
  });
  if (badHeader !== null) return fail('bad_header', badHeader);

  const lengthText = headers.get('content-length');
  if (lengthText !== undefined) {
    if (!/^\d{1,6}$/.test(lengthText)) return fail('bad_content_length', lengthText);
    const length = Number(lengthText);
    const available = Buffer.byteLength(rest, 'utf8');
    if (length > available) return fail('bad_content_length', `says ${length}, has ${available}`);
    // Extra bytes after the body (a datagram's padding) are dropped, as RFC 3261 section 18.3 says.
    message.body = Buffer.from(rest, 'utf8').subarray(0, length).toString('utf8');
  } else message.body = rest;

  for (const name of REQUIRED) if (!headers.has(name)) return fail('missing_header', name);
  const cseq = parseCSeq(headers.get('cseq') ?? '');
  if (!cseq) return fail('bad_cseq', headers.get('cseq') ?? '');
  if (message.kind === 'request' && cseq.method !== message.method && message.method !== 'ACK') {
    return fail('bad_cseq', `CSeq method ${cseq.method} for ${message.method}`);
  }
  if (message.kind === 'request' && !METHOD.test(message.method))
    return fail('bad_start_line', message.method);
  return { ok: true, message };
}

export function parseCSeq(value: string): { seq: number; method: string } | null {
  const match = /^(\d{1,10})\s+([A-Za-z]+)$/.exec(value.trim());
  if (!match) return null;
  const seq = Number(match[1]);
  if (seq > 2 ** 31 - 1) return null;
  return { seq, method: (match[2] ?? '').toUpperCase() };
}

/** The message as it goes on the wire; Content-Length is always written from the body. */
export function serializeSipMessage(message: SipMessage): Buffer {
  const start =
    message.kind === 'request'
      ? `${message.method} ${message.uri} SIP/2.0`
      : `SIP/2.0 ${message.status} ${message.reason}`;
  const body = Buffer.from(message.body, 'utf8');
  const lines = [start];
  for (const [name, value] of message.headers.entries()) {
    if (name.toLowerCase() !== 'content-length') lines.push(`${name}: ${value}`);
  }
  lines.push(`Content-Length: ${body.length}`, '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'utf8'), body]);
}

/** Standard reason phrases for the statuses Parley sends. */
export const REASONS: Readonly<Record<number, string>> = {
  100: 'Trying',
  180: 'Ringing',
  183: 'Session Progress',
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  415: 'Unsupported Media Type',
  420: 'Bad Extension',
  422: 'Session Interval Too Small',
  480: 'Temporarily Unavailable',
  481: 'Call/Transaction Does Not Exist',
  486: 'Busy Here',
  487: 'Request Terminated',
  488: 'Not Acceptable Here',
  491: 'Request Pending',
  500: 'Server Internal Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  513: 'Message Too Large',
  603: 'Decline',
};

/**
 * A response to `request` (RFC 3261 section 8.2.6): its Via, From, Call-ID and CSeq copied, its
 * To with `toTag` added when the request's To has no tag.
 */
export function responseTo(
  request: SipRequest,
  status: number,
  options: { reason?: string; toTag?: string; headers?: [string, string][]; body?: string } = {},
): SipResponse {
  const headers = new SipHeaders();
  for (const via of request.headers.getAll('via')) headers.append('via', via);
  headers.append('from', request.headers.get('from') ?? '');
  let to = request.headers.get('to') ?? '';
  if (options.toTag && !/;\s*tag=/i.test(to)) to = `${to};tag=${options.toTag}`;
  headers.append('to', to);
  headers.append('call-id', request.headers.get('call-id') ?? '');
  headers.append('cseq', request.headers.get('cseq') ?? '');
  for (const [name, value] of options.headers ?? []) headers.append(name, value);
  return {
    kind: 'response',
    status,
    reason: options.reason ?? REASONS[status] ?? 'Unknown',
    headers,
    body: options.body ?? '',
  };
}
