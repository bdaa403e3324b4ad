import { createHmac, timingSafeEqual } from 'node:crypto';

// X-Twilio-Signature (Twilio's "Webhooks security"): base64 HMAC-SHA1, keyed with the account's
// auth token, over the full URL Twilio requested followed by every POST parameter's name and
// value, sorted by name (case-sensitive, by code unit), with nothing between them. One check for
// every request Twilio makes to Parley: messages (providers) and calls (telephony).

export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const names = Object.keys(params).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let data = url;
  for (const name of names) data += name + (params[name] ?? '');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Equal strings, compared in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The URL as given, and the same with its default port written out or left out: a proxy may add
 * or drop `:443`, and Twilio's own helper libraries accept either form.
 */
function urlVariants(url: string): string[] {
  const match = /^(https?:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (!match) return [url];
  const [, scheme = '', authority = '', rest = ''] = match;
  const defaultPort = scheme.toLowerCase() === 'https://' ? '443' : '80';
  const port = /:(\d*)$/.exec(authority);
  if (port && !authority.endsWith(']')) {
    if (port[1] !== defaultPort) return [url];
    return [url, scheme + authority.slice(0, -port[0].length) + rest];
  }
  return [url, `${scheme}${authority}:${defaultPort}${rest}`];
}

/** Whether `signature` is Twilio's for this request (a missing or empty one never is). */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
): boolean {
  if (!signature) return false;
  return urlVariants(url).some((variant) =>
    sameSecret(twilioSignature(authToken, variant, params), signature),
  );
}
