import { normalizeE164 } from '../../core/index.ts';
import type { DialOutcome, DialRequest } from '../types.ts';
import { createSipCall, type SipCall } from './call.ts';
import { authorize, parseChallenge } from './digest.ts';
import { ALLOW, USER_AGENT, dialogRequest, uriIn, withoutTag, type Dialog } from './dialog.ts';
import { SipHeaders } from './headers.ts';
import type { SipRequest, SipResponse } from './message.ts';
import { createOffer, readAnswer } from './sdp.ts';
import { after } from './timers.ts';
import { newCallId, newTag } from './transactions.ts';
import { resolveHost, type SipTrunkSettings } from './trunks.ts';
import type { SipPeer } from './transport.ts';
import { parseSipUri, tagOf } from './uri.ts';
import type { SipContext } from './context.ts';

// An outbound call through a number's trunk (RFC 3261 section 13.2): INVITE with our offer to the
// trunk (or its outbound proxy), digest answers to 401/407, ringing reported once, and the final
// response mapped onto the call's outcome. A ring timeout or an aborted dial sends CANCEL once a
// provisional response allows it.

/** SIP statuses that mean busy, and those that mean nobody answered. */
const BUSY = new Set([486, 600]);
const NO_ANSWER = new Set([408, 480, 487]);

export function outcomeOf(response: SipResponse): DialOutcome {
  if (BUSY.has(response.status)) return { kind: 'busy' };
  if (NO_ANSWER.has(response.status)) return { kind: 'no-answer' };
  return { kind: 'failed', reason: `SIP ${response.status} ${response.reason}`.trim() };
}

/** Where the trunk's requests go: its outbound proxy, else its host. */
async function firstHop(trunk: SipTrunkSettings): Promise<SipPeer> {
  const transport = trunk.transport === 'tcp' ? 'tcp' : 'udp';
  if (trunk.outboundProxy) {
    const uri = parseSipUri(
      trunk.outboundProxy.includes(':') && /^sips?:/i.test(trunk.outboundProxy)
        ? trunk.outboundProxy
        : `sip:${trunk.outboundProxy}`,
    );
    if (uri?.host) {
      const proxyTransport = uri.params.get('transport');
      return {
        transport: proxyTransport === 'tcp' || proxyTransport === 'udp' ? proxyTransport : transport,
        address: await resolveHost(uri.host),
        port: uri.port ?? 5060,
      };
    }
  }
  return { transport, address: await resolveHost(trunk.host), port: trunk.port ?? 5060 };
}

const hostPort = (trunk: SipTrunkSettings) => {
  const host = trunk.host.includes(':') && !trunk.host.startsWith('[') ? `[${trunk.host}]` : trunk.host;
  return trunk.port && trunk.port !== 5060 ? `${host}:${trunk.port}` : host;
};

export async function dialSip(ctx: SipContext, request: DialRequest): Promise<DialOutcome> {
  if (request.signal?.aborted) return { kind: 'failed', reason: 'canceled' };
  const to = normalizeE164(request.to);
  if (!to || to !== request.to) return { kind: 'failed', reason: 'invalid_number' };
  const trunk = await ctx.directory.outbound(request.from, request.workspaceId ?? null);
  if (!trunk) return { kind: 'failed', reason: 'the caller id has no SIP trunk on this server' };
  if (trunk.transport === 'tls') return { kind: 'failed', reason: 'SIP over TLS is not supported yet' };
  let hop: SipPeer;
  try {
    hop = await firstHop(trunk);
  } catch {
    return { kind: 'failed', reason: 'the SIP trunk host could not be resolved' };
  }
  const media = await ctx.media.allocate().catch(() => null);
  if (!media) return { kind: 'failed', reason: 'no RTP port is free on this node' };
  const transportParam = hop.transport === 'tcp' ? ';transport=tcp' : '';
  const local = { address: ctx.publicAddress, port: media.port, sessionId: Date.now() % 1e9, version: 1 };
  const dialog: Dialog = {
    callId: newCallId(ctx.publicAddress),
    localTag: newTag(),
    remoteTag: '',
    localUri: `<sip:${request.from}@${hostPort(trunk)}>`,
    remoteUri: `<sip:${to}@${hostPort(trunk)}>`,
    localSeq: 0,
    remoteSeq: null,
    remoteTarget: `sip:${to}@${hostPort(trunk)}${trunk.transport === 'tcp' ? ';transport=tcp' : ''}`,
    routeSet: trunk.outboundProxy ? [`<sip:${hop.address}:${hop.port};lr${transportParam}>`] : [],
    peer: hop,
    contact: `<sip:parley@${ctx.contactHost}${transportParam}>`,
  };
  const offer = createOffer(local);
  const invite = (): SipRequest => {
    const req = dialogRequest(dialog, 'INVITE', {
      headers: [
        ['allow', ALLOW],
        ['supported', 'timer'],
        ['p-asserted-identity', `<sip:${request.from}@${hostPort(trunk)}>`],
      ],
      body: offer,
    });
    // No tag on To in the initial request.
    req.headers.set('to', dialog.remoteUri);
    return req;
  };

  let rang = false;
  let canCancel = false;
  let cancelWanted: 'timeout' | 'aborted' | null = null;
  let current = invite();
  const sendCancel = () => {
    const cancel: SipRequest = {
      kind: 'request',
      method: 'CANCEL',
      uri: current.uri,
      headers: new SipHeaders([
        ['via', current.headers.get('via') ?? ''],
        ...current.headers.getAll('route').map((r) => ['route', r] as [string, string]),
        ['max-forwards', '70'],
        ['from', current.headers.get('from') ?? ''],
        ['to', current.headers.get('to') ?? ''],
        ['call-id', dialog.callId],
        ['cseq', `${dialog.localSeq} CANCEL`],
        ['user-agent', USER_AGENT],
      ]),
      body: '',
    };
    // The CANCEL keeps the INVITE's branch: a transaction of its own, with the same Via.
    void ctx.endpoint.request(cancel, hop, { keepVia: true });
  };
  const wantCancel = (why: 'timeout' | 'aborted') => {
    if (cancelWanted) return;
    cancelWanted = why;
    if (canCancel) sendCancel();
  };
  const onAbort = () => wantCancel('aborted');
  request.signal?.addEventListener('abort', onAbort, { once: true });
  const stopRing = after(ctx.clock, ctx.ringTimeoutMs, () => wantCancel('timeout'));
  const provisional = (response: SipResponse) => {
    canCancel = true;
    if (cancelWanted) sendCancel();
    if (!rang && (response.status === 180 || response.status === 183)) {
      rang = true;
      request.onRinging?.();
    }
  };

  let response: SipResponse;
  let authTries = 0;
  let call: SipCall | null = null;
  try {
    for (;;) {
      response = await ctx.endpoint.request(current, hop, {
        provisional,
        retransmitted2xx: () => resendAck(),
      });
      if (
        (response.status === 401 || response.status === 407) &&
        authTries < 2 &&
        trunk.username &&
        trunk.password
      ) {
        const header = response.headers.get(
          response.status === 401 ? 'www-authenticate' : 'proxy-authenticate',
        );
        const challenge = header ? parseChallenge(header) : null;
        if (challenge && !cancelWanted) {
          authTries += 1;
          current = invite();
          current.headers.append(
            response.status === 401 ? 'authorization' : 'proxy-authorization',
            authorize(
              challenge,
              { username: trunk.authUsername ?? trunk.username, password: trunk.password },
              'INVITE',
              current.uri,
            ),
          );
          canCancel = false;
          continue;
        }
      }
      break;
    }
  } finally {
    stopRing();
    request.signal?.removeEventListener('abort', onAbort);
  }

  const ackFor = (): SipRequest => dialogRequest(dialog, 'ACK', { seq: dialog.localSeq });
  function resendAck() {
    if (call) ctx.endpoint.sendStateless(ackFor(), dialog.peer);
  }

  if (response.status >= 300 || response.status < 200) {
    media.close();
    if (cancelWanted === 'aborted') return { kind: 'failed', reason: 'canceled' };
    if (cancelWanted === 'timeout' && response.status === 487) return { kind: 'no-answer' };
    return outcomeOf(response);
  }

  // Answered: the dialog takes the far end's tag, target and route set (RFC 3261 section 12.1.2).
  dialog.remoteTag = tagOf(response.headers.get('to')) ?? '';
  dialog.remoteUri = withoutTag(response.headers.get('to') ?? dialog.remoteUri);
  dialog.remoteTarget = uriIn(response.headers.get('contact')) ?? dialog.remoteTarget;
  dialog.routeSet = response.headers.getAll('record-route').reverse();
  ctx.endpoint.sendStateless(ackFor(), dialog.peer);
  const answer = readAnswer(response.body);
  if ('error' in answer || cancelWanted) {
    // An answer we cannot use, or one that crossed our CANCEL: hang it up (RFC 3261 section 9.1).
    void ctx.endpoint.request(dialogRequest(dialog, 'BYE'), dialog.peer);
    media.close();
    if (cancelWanted === 'aborted') return { kind: 'failed', reason: 'canceled' };
    if (cancelWanted === 'timeout') return { kind: 'no-answer' };
    return { kind: 'failed', reason: `SIP answer unusable: ${'error' in answer ? answer.error : ''}` };
  }
  const expires = Number.parseInt(response.headers.get('session-expires') ?? '', 10);
  const refresher = /refresher=(uac|uas)/i
    .exec(response.headers.get('session-expires') ?? '')?.[1]
    ?.toLowerCase();
  call = createSipCall({
    dialog,
    media,
    local,
    negotiated: answer,
    endpoint: ctx.endpoint,
    clock: ctx.clock,
    logger: ctx.logger,
    sessionTimer:
      Number.isFinite(expires) && expires > 0
        ? { seconds: expires, weRefresh: refresher !== 'uas' }
        : undefined,
    referTarget: (target) => `sip:${target}@${hostPort(trunk)}`,
    onEnd: () => ctx.calls.delete(dialog.callId),
  });
  ctx.calls.set(dialog.callId, call);
  return { kind: 'answered', leg: call.leg, answeredAt: ctx.clock.now() };
}
