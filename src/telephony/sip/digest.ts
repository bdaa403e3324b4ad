import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// HTTP digest authentication as SIP uses it (RFC 3261 section 22, RFC 2617, RFC 8760 for SHA-256):
// answering a trunk's 401/407 challenge, and challenging callers who must authenticate to us.

export interface DigestChallenge {
  realm: string;
  nonce: string;
  algorithm: 'MD5' | 'SHA-256';
  /** `auth` when the challenge offers it (we never do auth-int). */
  qop: 'auth' | null;
  opaque: string | null;
  stale: boolean;
}

/** Parameters of a `Digest k=v, k="v"` header value, names lower-cased. */
export function parseDigestParams(value: string): Map<string, string> | null {
  const match = /^\s*Digest\s+(.*)$/is.exec(value);
  if (!match) return null;
  const params = new Map<string, string>();
  const re = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*(?:,|$)/g;
  for (const m of (match[1] ?? '').matchAll(re)) {
    params.set((m[1] ?? '').toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? ''));
  }
  return params;
}

export function parseChallenge(value: string): DigestChallenge | null {
  const params = parseDigestParams(value);
  const realm = params?.get('realm');
  const nonce = params?.get('nonce');
  if (!params || realm === undefined || !nonce) return null;
  const algorithm = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (algorithm !== 'MD5' && algorithm !== 'SHA-256') return null;
  const qops = (params.get('qop') ?? '').split(',').map((q) => q.trim().toLowerCase());
  return {
    realm,
    nonce,
    algorithm,
    qop: qops.includes('auth') ? 'auth' : null,
    opaque: params.get('opaque') ?? null,
    stale: (params.get('stale') ?? '').toLowerCase() === 'true',
  };
}

const hash = (algorithm: 'MD5' | 'SHA-256', text: string) =>
  createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
    .update(text)
    .digest('hex');

function digestResponse(input: {
  algorithm: 'MD5' | 'SHA-256';
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  qop: 'auth' | null;
  nc: string;
  cnonce: string;
}): string {
  const ha1 = hash(input.algorithm, `${input.username}:${input.realm}:${input.password}`);
  const ha2 = hash(input.algorithm, `${input.method}:${input.uri}`);
  return input.qop
    ? hash(input.algorithm, `${ha1}:${input.nonce}:${input.nc}:${input.cnonce}:${input.qop}:${ha2}`)
    : hash(input.algorithm, `${ha1}:${input.nonce}:${ha2}`);
}

const quote = (v: string) => `"${v.replace(/(["\\])/g, '\\$1')}"`;

/** The Authorization (or Proxy-Authorization) value answering `challenge`. */
export function authorize(
  challenge: DigestChallenge,
  credentials: { username: string; password: string },
  method: string,
  uri: string,
  nonceCount = 1,
): string {
  const nc = nonceCount.toString(16).padStart(8, '0');
  const cnonce = randomBytes(8).toString('hex');
  const response = digestResponse({
    algorithm: challenge.algorithm,
    username: credentials.username,
    realm: challenge.realm,
    password: credentials.password,
    method,
    uri,
    nonce: challenge.nonce,
    qop: challenge.qop,
    nc,
    cnonce,
  });
  const parts = [
    `username=${quote(credentials.username)}`,
    `realm=${quote(challenge.realm)}`,
    `nonce=${quote(challenge.nonce)}`,
    `uri=${quote(uri)}`,
    `response=${quote(response)}`,
    `algorithm=${challenge.algorithm}`,
  ];
  if (challenge.qop) parts.push(`qop=${challenge.qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
  if (challenge.opaque !== null) parts.push(`opaque=${quote(challenge.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}

/** A fresh challenge we send (401 WWW-Authenticate). */
export function challengeHeader(
  realm: string,
  nonce = randomBytes(16).toString('hex'),
): { value: string; nonce: string } {
  return { value: `Digest realm=${quote(realm)}, nonce=${quote(nonce)}, algorithm=MD5, qop="auth"`, nonce };
}

/**
 * Whether `authorization` answers a challenge of ours with `password` for `username` in `realm`.
 * `nonceValid` says whether the nonce is one we issued and still honour.
 */
export function verifyAuthorization(
  authorization: string,
  expected: { realm: string; username: string; password: string; method: string },
  nonceValid: (nonce: string) => boolean,
): boolean {
  const params = parseDigestParams(authorization);
  if (!params) return false;
  const nonce = params.get('nonce') ?? '';
  const uri = params.get('uri') ?? '';
  const given = params.get('response') ?? '';
  if (params.get('username') !== expected.username || params.get('realm') !== expected.realm) return false;
  if (!nonceValid(nonce)) return false;
  const algorithm = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (algorithm !== 'MD5' && algorithm !== 'SHA-256') return false;
  const qop = params.get('qop')?.toLowerCase() === 'auth' ? 'auth' : null;
  const want = digestResponse({
    algorithm,
    username: expected.username,
    realm: expected.realm,
    password: expected.password,
    method: expected.method,
    uri,
    nonce,
    qop,
    nc: params.get('nc') ?? '',
    cnonce: params.get('cnonce') ?? '',
  });
  const a = Buffer.from(want);
  const b = Buffer.from(given.toLowerCase());
  return a.length === b.length && timingSafeEqual(a, b);
}
