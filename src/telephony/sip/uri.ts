// SIP URIs and the name-addr form of From, To, Contact and Refer-To (RFC 3261 sections 19.1 and
// 20.10): enough to read who is called and from where, the tag of each side, and where to send.

export interface SipUri {
  scheme: 'sip' | 'sips' | 'tel';
  user: string;
  host: string;
  port: number | null;
  /** URI parameters (`transport`, `lr`, ...), lower-case names; a flag has the value ''. */
  params: Map<string, string>;
}

export interface NameAddr {
  display: string;
  uri: SipUri;
  /** The raw URI text as written. */
  uriText: string;
  /** Header parameters after the URI (`tag`, `expires`, ...). */
  params: Map<string, string>;
}

function parseParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of text.split(';')) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0) params.set(trimmed.toLowerCase(), '');
    else
      params.set(
        trimmed.slice(0, eq).trim().toLowerCase(),
        trimmed
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ''),
      );
  }
  return params;
}

const URI =
  /^(sips?|tel):(?:([^@;?]*)@)?(\[[0-9a-fA-F:.]+\]|[^:;?>]+)(?::(\d{1,5}))?((?:;[^?]*)?)(?:\?.*)?$/i;

export function parseSipUri(text: string): SipUri | null {
  const match = URI.exec(text.trim());
  if (!match) return null;
  const scheme = (match[1] ?? '').toLowerCase() as SipUri['scheme'];
  if (scheme === 'tel') {
    // tel:+14155550100: the number is the "host" part of the pattern.
    return { scheme, user: match[3] ?? '', host: '', port: null, params: parseParams(match[5] ?? '') };
  }
  const port = match[4] !== undefined ? Number(match[4]) : null;
  if (port !== null && (port < 1 || port > 65_535)) return null;
  const userText = (match[2] ?? '').split(':')[0] ?? '';
  let user = userText;
  try {
    user = decodeURIComponent(userText);
  } catch {
    // kept as written
  }
  return {
    scheme,
    user,
    host: (match[3] ?? '').toLowerCase(),
    port,
    params: parseParams(match[5] ?? ''),
  };
}

/** `"Ann" <sip:ann@host>;tag=1`, `<sip:host>`, or a bare `sip:ann@host;tag=1`. */
export function parseNameAddr(text: string): NameAddr | null {
  const value = text.trim();
  const open = value.indexOf('<');
  let display = '';
  let uriText: string;
  let paramText: string;
  if (open >= 0) {
    const close = value.indexOf('>', open);
    if (close < 0) return null;
    display = value.slice(0, open).trim().replace(/^"|"$/g, '');
    uriText = value.slice(open + 1, close);
    paramText = value.slice(close + 1);
  } else {
    // Without brackets, parameters after the URI belong to the header (RFC 3261 section 20.10).
    const semi = value.indexOf(';');
    uriText = semi < 0 ? value : value.slice(0, semi);
    paramText = semi < 0 ? '' : value.slice(semi);
  }
  const uri = parseSipUri(uriText);
  if (!uri) return null;
  return { display, uri, uriText, params: parseParams(paramText) };
}

export const tagOf = (header: string | undefined): string | null => {
  if (!header) return null;
  return parseNameAddr(header)?.params.get('tag') ?? null;
};

/** A number in E.164 from a URI's user part (`+14155550100`, `14155550100`, `tel:...`), or null. */
export function e164Of(uri: SipUri): string | null {
  const digits = uri.user.replace(/[\s().-]/g, '');
  if (/^\+[1-9]\d{6,14}$/.test(digits)) return digits;
  if (/^[1-9]\d{6,14}$/.test(digits)) return `+${digits}`;
  return null;
}
