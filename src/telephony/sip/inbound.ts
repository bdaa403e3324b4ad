import type { CallLeg, IncomingRejection } from '../types.ts';
import { createSipCall } from './call.ts';
import type { SipContext } from './context.ts';
import { challengeHeader, verifyAuthorization } from './digest.ts';
import { ALLOW, uriIn, withoutTag, type Dialog } from './dialog.ts';
import { answerOffer } from './sdp.ts';
import { newTag, type ServerTransaction } from './transactions.ts';
import { allowedSource, type SipInboundMatch } from './trunks.ts';
import { e164Of, parseNameAddr, parseSipUri } from './uri.ts';

// An INVITE from outside a dialog (RFC 3261 section 13.3): the number called must be one of ours,
// the caller must come from the number's trunk (its allow-list) or authenticate with the number's
// inbound credentials, and only then does it ring: the call goes to the inbound path (routing,
// slots), which answers or turns it away. Everyone else gets 404 or 403 at once, never a ring.

export const AUTH_REALM = 'parley';
/** How long a nonce we issued is honoured. */
const NONCE_TTL_MS = 60_000;
const MAX_NONCES = 10_000;

export interface NonceBook {
  issue(now: number): string;
  valid(nonce: string, now: number): boolean;
}

export function createNonceBook(): NonceBook {
  const issued = new Map<string, number>();
  return {
    issue(now) {
      if (issued.size >= MAX_NONCES) {
        for (const [nonce, at] of issued)
          if (at + NONCE_TTL_MS <= now || issued.size >= MAX_NONCES) issued.delete(nonce);
      }
      const { nonce } = challengeHeader(AUTH_REALM);
      issued.set(nonce, now);
      return nonce;
    },
    valid(nonce, now) {
      const at = issued.get(nonce);
      return at !== undefined && at + NONCE_TTL_MS > now;
    },
  };
}

/** The number an INVITE calls: the Request-URI's user part, else the To header's. */
function calledNumber(tx: ServerTransaction): string | null {
  const fromUri = parseSipUri(tx.request.uri);
  const byUri = fromUri ? e164Of(fromUri) : null;
  if (byUri) return byUri;
  const to = parseNameAddr(tx.request.headers.get('to') ?? '');
  return to ? e164Of(to.uri) : null;
}

async function admitted(
  ctx: SipContext,
  tx: ServerTransaction,
  matches: SipInboundMatch[],
  nonces: NonceBook,
) {
  for (const match of matches) if (await allowedSource(tx.from.address, match.trunk)) return match;
  const withCredentials = matches.filter((m) => m.trunk.inboundUsername && m.trunk.inboundPassword);
  if (withCredentials.length === 0) return null;
  const given = tx.request.headers.get('authorization') ?? tx.request.headers.get('proxy-authorization');
  const now = ctx.clock.now();
  if (given) {
    for (const match of withCredentials) {
      const ok = verifyAuthorization(
        given,
        {
          realm: AUTH_REALM,
          username: match.trunk.inboundUsername ?? '',
          password: match.trunk.inboundPassword ?? '',
          method: 'INVITE',
        },
        (nonce) => nonces.valid(nonce, now),
      );
      if (ok) return match;
    }
  }
  return 'challenge' as const;
}

export async function receiveInvite(
  ctx: SipContext,
  tx: ServerTransaction,
  nonces: NonceBook,
): Promise<void> {
  const number = calledNumber(tx);
  const matches = number ? await ctx.directory.inbound(number) : [];
  if (!number || matches.length === 0) {
    tx.reply(404);
    return;
  }
  const match = await admitted(ctx, tx, matches, nonces);
  if (match === null) {
    tx.reply(403);
    return;
  }
  if (match === 'challenge') {
    const nonce = nonces.issue(ctx.clock.now());
    tx.reply(401, { headers: [['www-authenticate', challengeHeader(AUTH_REALM, nonce).value]] });
    return;
  }
  if (!tx.request.body) {
    tx.reply(488, { reason: 'Offer Required' });
    return;
  }
  const media = await ctx.media.allocate().catch(() => null);
  if (!media) {
    tx.reply(503, { headers: [['retry-after', '5']] });
    return;
  }
  const local = {
    address: ctx.publicAddress,
    port: media.port,
    sessionId: ctx.clock.now() % 1e9,
    version: 1,
  };
  const agreed = answerOffer(tx.request.body, local);
  if ('error' in agreed) {
    media.close();
    tx.reply(488, { headers: [['warning', `399 parley "${agreed.error}"`]] });
    return;
  }
  const from = parseNameAddr(tx.request.headers.get('from') ?? '');
  const caller = (from && e164Of(from.uri)) ?? from?.uri.user ?? 'anonymous';
  const localTag = newTag();
  const transportParam = tx.from.transport === 'tcp' ? ';transport=tcp' : '';
  const dialog: Dialog = {
    callId: tx.request.headers.get('call-id') ?? '',
    localTag,
    remoteTag: parseNameAddr(tx.request.headers.get('from') ?? '')?.params.get('tag') ?? '',
    localUri: withoutTag(tx.request.headers.get('to') ?? ''),
    remoteUri: withoutTag(tx.request.headers.get('from') ?? ''),
    localSeq: 0,
    remoteSeq: Number.parseInt(tx.request.headers.get('cseq') ?? '0', 10) || 0,
    remoteTarget: uriIn(tx.request.headers.get('contact')) ?? tx.request.uri,
    routeSet: tx.request.headers.getAll('record-route'),
    // Requests of ours go back where the INVITE came from (symmetric signalling, for NAT).
    peer: tx.from,
    contact: `<sip:${number}@${ctx.contactHost}${transportParam}>`,
  };
  let state: 'ringing' | 'answered' | 'gone' = 'ringing';
  tx.onCancel = () => {
    if (state !== 'ringing') return;
    state = 'gone';
    media.close();
    tx.reply(487, { toTag: localTag });
  };
  // Proxies on the way (a dispatcher in front of several nodes) stay in the dialog's path: their
  // Record-Route goes back in our 18x and 2xx (RFC 3261 section 12.1.1).
  const recordRoute: [string, string][] = tx.request.headers
    .getAll('record-route')
    .map((r) => ['record-route', r]);
  tx.reply(180, { toTag: localTag, headers: [...recordRoute, ['contact', dialog.contact]] });
  const sessionExpires = Number.parseInt(tx.request.headers.get('session-expires') ?? '', 10);

  const answer = async (): Promise<CallLeg> => {
    if (state !== 'ringing') throw new Error('the caller hung up before the call was answered');
    state = 'answered';
    const call = createSipCall({
      dialog,
      media,
      local,
      negotiated: agreed.media,
      endpoint: ctx.endpoint,
      clock: ctx.clock,
      logger: ctx.logger,
      // The caller refreshes the session it asked for (RFC 4028: refresher=uac).
      sessionTimer:
        Number.isFinite(sessionExpires) && sessionExpires > 0
          ? { seconds: sessionExpires, weRefresh: false }
          : undefined,
      referTarget: (target) => `sip:${target}@${match.trunk.host}`,
      onEnd: () => ctx.calls.delete(dialog.callId),
    });
    ctx.calls.set(dialog.callId, call);
    tx.onAckTimeout = () => {
      ctx.logger?.info({ call_id: dialog.callId }, 'SIP call ended: our 200 OK was never acknowledged');
      void call.leg.hangup();
    };
    tx.onAck = (ack) => call.acked(ack);
    const timerHeaders: [string, string][] =
      Number.isFinite(sessionExpires) && sessionExpires > 0
        ? [
            ['session-expires', `${sessionExpires};refresher=uac`],
            ['require', 'timer'],
          ]
        : [];
    tx.reply(200, {
      toTag: localTag,
      headers: [
        ...recordRoute,
        ['contact', dialog.contact],
        ['allow', ALLOW],
        ['supported', 'timer'],
        ['content-type', 'application/sdp'],
        ...timerHeaders,
      ],
      body: agreed.answer,
    });
    return call.leg;
  };
  const reject = (reason: IncomingRejection) => {
    if (state !== 'ringing') return;
    state = 'gone';
    media.close();
    tx.reply(reason === 'busy' ? 486 : reason === 'failed' ? 500 : 480, { toTag: localTag });
  };

  if (!ctx.incoming) {
    reject('unavailable');
    return;
  }
  try {
    await ctx.incoming({ from: caller, to: number, workspaceId: match.workspaceId, answer, reject });
  } catch (err) {
    ctx.logger?.warn({ err }, 'an inbound SIP call could not be taken');
    reject('unavailable');
  }
}
