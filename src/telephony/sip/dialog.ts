import { SipHeaders } from './headers.ts';
import type { SipRequest } from './message.ts';
import type { SipPeer } from './transport.ts';
import { parseNameAddr } from './uri.ts';

// A dialog (RFC 3261 section 12): the two tags and Call-ID that name a call, each side's CSeq, the
// far end's target and the route set, and where its requests are sent.

export const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, INFO, NOTIFY, REFER';
export const USER_AGENT = 'Parley';

export interface Dialog {
  callId: string;
  localTag: string;
  remoteTag: string;
  /** Our From (outbound) or To (inbound) value, without the tag. */
  localUri: string;
  remoteUri: string;
  localSeq: number;
  /** The far end's last CSeq number (null before its first in-dialog request). */
  remoteSeq: number | null;
  /** The far end's Contact URI: the Request-URI of our requests. */
  remoteTarget: string;
  /** Route headers our requests carry (from Record-Route). */
  routeSet: string[];
  /** Where our requests go: the next hop (the first loose route, else the far end's address). */
  peer: SipPeer;
  /** Our Contact value. */
  contact: string;
}

/** A request inside `dialog` (its CSeq incremented, except for ACK and CANCEL). */
export function dialogRequest(
  dialog: Dialog,
  method: string,
  options: { headers?: [string, string][]; body?: string; contentType?: string; seq?: number } = {},
): SipRequest {
  const seq = options.seq ?? (method === 'ACK' || method === 'CANCEL' ? dialog.localSeq : ++dialog.localSeq);
  const headers = new SipHeaders();
  for (const route of dialog.routeSet) headers.append('route', route);
  headers.append('max-forwards', '70');
  headers.append('from', `${dialog.localUri};tag=${dialog.localTag}`);
  headers.append('to', `${dialog.remoteUri};tag=${dialog.remoteTag}`);
  headers.append('call-id', dialog.callId);
  headers.append('cseq', `${seq} ${method}`);
  if (method !== 'ACK' && method !== 'CANCEL') headers.append('contact', dialog.contact);
  headers.append('user-agent', USER_AGENT);
  for (const [name, value] of options.headers ?? []) headers.append(name, value);
  if (options.body) headers.append('content-type', options.contentType ?? 'application/sdp');
  return { kind: 'request', method, uri: dialog.remoteTarget, headers, body: options.body ?? '' };
}

/** The URI in a name-addr or bare URI header value, without its header parameters. */
export function uriIn(value: string | undefined): string | null {
  if (!value) return null;
  return parseNameAddr(value)?.uriText ?? null;
}

/** The name-addr part of a From/To value without its tag (kept as the dialog's URI). */
export function withoutTag(value: string): string {
  return value.replace(/;\s*tag=[^;]*/i, '');
}

export function isInDialog(request: SipRequest): boolean {
  return /;\s*tag=/i.test(request.headers.get('to') ?? '');
}
