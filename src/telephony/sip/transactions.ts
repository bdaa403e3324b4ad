import { randomBytes } from 'node:crypto';
import type { Clock, Logger } from '../../core/index.ts';
import { SipHeaders } from './headers.ts';
import {
  parseCSeq,
  parseSipMessage,
  responseTo,
  serializeSipMessage,
  type SipRequest,
  type SipResponse,
} from './message.ts';
import { after, SIP_TIMERS, type SipTimerValues } from './timers.ts';
import type { SipPeer, SipTransport } from './transport.ts';

// The transaction layer (RFC 3261 section 17, with RFC 6026's accepted states): client
// transactions retransmit over UDP until answered (timers A, B, D, E, F, K), server transactions
// answer retransmitted requests with their last response (timers G, H, I, J) and retransmit a 2xx
// to an INVITE until its ACK comes. What reaches the layer above is each new request once, each
// response once (a 2xx to an INVITE again when it is retransmitted, so the dialog can re-ACK),
// ACKs to 2xx, CANCELs matched to their INVITE, and malformed requests answered 400 here.

export const BRANCH_MAGIC = 'z9hG4bK';
export const newBranch = () => `${BRANCH_MAGIC}${randomBytes(10).toString('hex')}`;
export const newTag = () => randomBytes(6).toString('hex');
export const newCallId = (host: string) => `${randomBytes(12).toString('hex')}@${host}`;

export interface ServerTransaction {
  readonly request: SipRequest;
  readonly from: SipPeer;
  /** Sends a response; the last final one is repeated to retransmissions. Later calls after a final are ignored. */
  respond(response: SipResponse): void;
  /** Forgets the request unanswered (a flood): its retransmissions come up again as new. */
  drop(): void;
  /** Shorthand: a response built from the request. */
  reply(status: number, options?: Parameters<typeof responseTo>[2]): SipResponse;
  /** Set by the INVITE's handler: a CANCEL for it came (already answered 200 here). */
  onCancel?: () => void;
  /** Set by the INVITE's handler: its 2xx got no ACK within 64*T1 (the call must end). */
  onAckTimeout?: () => void;
  /** The ACK of a 2xx came. */
  onAck?: (ack: SipRequest) => void;
  readonly finalSent: boolean;
}

export interface ClientRequestHandlers {
  /** Each provisional response (1xx but 100). */
  provisional?: (response: SipResponse) => void;
  /** A 2xx to an INVITE that came again (its ACK was lost): send the ACK again. */
  retransmitted2xx?: (response: SipResponse) => void;
  /** The request already has its Via (a CANCEL keeps its INVITE's branch). */
  keepVia?: boolean;
}

export interface SipEndpointOptions {
  transport: SipTransport;
  clock: Clock;
  /** Host (and port) written in our Via headers (PARLEY_SIP_PUBLIC_ADDRESS). */
  viaHost: string;
  timers?: SipTimerValues;
  logger?: Logger;
}

export interface SipEndpoint {
  /**
   * Sends a request as a client transaction: adds our Via (with a new branch) unless `keepVia`,
   * and resolves with its final response; a timeout resolves a 408 made here, a transport that
   * cannot send a 503 (RFC 3261 section 8.1.3.1).
   */
  request(request: SipRequest, to: SipPeer, handlers?: ClientRequestHandlers): Promise<SipResponse>;
  /** Sends a request outside any transaction (the ACK of a 2xx). */
  sendStateless(request: SipRequest, to: SipPeer): void;
  /** Where new requests go (one handler). ACKs matching no transaction come as requests too. */
  onRequest(handler: (tx: ServerTransaction) => void): void;
  /** The Via value of a request we send on `transport`. */
  via(transport: SipPeer['transport'], branch: string): string;
  readonly timers: SipTimerValues;
  close(): void;
}

/** Methods we understand (others are answered 501 by the layer above). */
interface ClientTx {
  invite: boolean;
  resolve: (response: SipResponse) => void;
  handlers: ClientRequestHandlers;
  state: 'trying' | 'proceeding' | 'accepted' | 'completed';
  stop: (() => void)[];
  request: SipRequest;
  to: SipPeer;
}

interface ServerTx {
  tx: ServerTransaction;
  last: SipResponse | null;
  lastBytes: Buffer | null;
  stop: (() => void)[];
}

const topBranch = (headers: SipHeaders): string => {
  const via = headers.get('via') ?? '';
  return /;\s*branch=([^;\s,]+)/i.exec(via)?.[1] ?? '';
};

/** A server transaction's key: the top Via's branch (RFC 3261 section 17.2.3), else the dialog's numbers. */
function serverKey(request: SipRequest, method: string): string {
  const branch = topBranch(request.headers);
  if (branch.startsWith(BRANCH_MAGIC)) return `${branch}|${method}`;
  const cseq = parseCSeq(request.headers.get('cseq') ?? '');
  return `${request.headers.get('call-id')}|${cseq?.seq}|${method}|${request.headers.get('via')}`;
}

export function createSipEndpoint(options: SipEndpointOptions): SipEndpoint {
  const { transport, clock, logger } = options;
  const timers = options.timers ?? SIP_TIMERS;
  const { t1, t2, t4 } = timers;
  const clients = new Map<string, ClientTx>();
  const servers = new Map<string, ServerTx>();
  /** 2xx responses to INVITEs still retransmitted until their ACK, by Call-ID and CSeq number. */
  const awaitingAck = new Map<string, ServerTx>();
  let handler: (tx: ServerTransaction) => void = (tx) => tx.reply(503);
  let closed = false;

  const send = (bytes: Buffer, to: SipPeer) => {
    if (!closed) transport.send(bytes, to);
  };

  function via(kind: SipPeer['transport'], branch: string) {
    return `SIP/2.0/${kind.toUpperCase()} ${options.viaHost};branch=${branch};rport`;
  }

  /** Retransmits `bytes` at T1, 2*T1 ... capped at `cap` until stopped (UDP only). */
  function retransmit(bytes: Buffer, to: SipPeer, cap: number, stops: (() => void)[], first = t1) {
    if (to.transport !== 'udp') return;
    let interval = first;
    const arm = () => {
      stops.push(
        after(clock, interval, () => {
          send(bytes, to);
          interval = Math.min(interval * 2, cap);
          arm();
        }),
      );
    };
    arm();
  }

  const stopAll = (stops: (() => void)[]) => {
    for (const stop of stops.splice(0)) stop();
  };

  function clientResponse(response: SipResponse) {
    const cseq = parseCSeq(response.headers.get('cseq') ?? '');
    const key = `${topBranch(response.headers)}|${cseq?.method}`;
    const tx = clients.get(key);
    if (!tx) return; // a stray response: dropped (RFC 3261 section 18.1.2)
    const { status } = response;
    if (status < 200) {
      if (tx.state !== 'trying' && tx.state !== 'proceeding') return;
      if (tx.state === 'trying') {
        tx.state = 'proceeding';
        if (tx.invite)
          stopAll(tx.stop.splice(1)); // timer A stops; timer B (first) stays
        else {
          // Timer E continues at T2 (RFC 3261 section 17.1.2.2).
          stopAll(tx.stop.splice(1));
          retransmit(serializeSipMessage(tx.request), tx.to, t2, tx.stop, t2);
        }
      }
      if (status > 100) tx.handlers.provisional?.(response);
      return;
    }
    if (tx.invite && status < 300) {
      if (tx.state === 'accepted') {
        tx.handlers.retransmitted2xx?.(response);
        return;
      }
      if (tx.state === 'completed') return;
      stopAll(tx.stop);
      tx.state = 'accepted';
      tx.stop.push(after(clock, 64 * t1, () => clients.delete(key)));
      tx.resolve(response);
      return;
    }
    if (tx.invite) {
      // The ACK of a failure is the transaction's own (RFC 3261 section 17.1.1.3).
      const ack = ackOfFailure(tx.request, response);
      send(serializeSipMessage(ack), tx.to);
      if (tx.state === 'completed' || tx.state === 'accepted') return;
      stopAll(tx.stop);
      tx.state = 'completed';
      tx.stop.push(after(clock, tx.to.transport === 'udp' ? 32_000 : 0, () => clients.delete(key)));
      tx.resolve(response);
      return;
    }
    if (tx.state === 'completed') return;
    stopAll(tx.stop);
    tx.state = 'completed';
    tx.stop.push(after(clock, tx.to.transport === 'udp' ? t4 : 0, () => clients.delete(key)));
    tx.resolve(response);
  }

  function serverRequest(request: SipRequest, from: SipPeer) {
    const method = request.method;
    if (method === 'ACK') {
      const invite = servers.get(serverKey(request, 'INVITE'));
      if (invite && invite.last && invite.last.status >= 300) {
        // The ACK of our failure: stop retransmitting it (timer I absorbs more ACKs).
        stopAll(invite.stop);
        invite.stop.push(
          after(clock, from.transport === 'udp' ? t4 : 0, () => servers.delete(serverKey(request, 'INVITE'))),
        );
        return;
      }
      const cseq = parseCSeq(request.headers.get('cseq') ?? '');
      const pending = awaitingAck.get(`${request.headers.get('call-id')}|${cseq?.seq}`);
      if (pending) {
        awaitingAck.delete(`${request.headers.get('call-id')}|${cseq?.seq}`);
        stopAll(pending.stop);
        pending.tx.onAck?.(request);
        return;
      }
      // An ACK for a 2xx we no longer retransmit, or a stray one: nothing to do.
      return;
    }
    const key = serverKey(request, method);
    const existing = servers.get(key);
    if (existing) {
      // A retransmission: repeat what we last said.
      if (existing.lastBytes) send(existing.lastBytes, from);
      return;
    }
    if (method === 'CANCEL') {
      const cancel = createServerTx(request, from, key);
      const invite = servers.get(serverKey(request, 'INVITE'));
      if (!invite) {
        cancel.tx.reply(481);
        return;
      }
      cancel.tx.reply(200);
      if (!invite.tx.finalSent) invite.tx.onCancel?.();
      return;
    }
    const created = createServerTx(request, from, key);
    handler(created.tx);
  }

  function createServerTx(request: SipRequest, from: SipPeer, key: string): ServerTx {
    const invite = request.method === 'INVITE';
    const state: ServerTx = {
      tx: undefined as unknown as ServerTransaction,
      last: null,
      lastBytes: null,
      stop: [],
    };
    let finalSent = false;
    let ownTag: string | undefined;
    const tx: ServerTransaction = {
      request,
      from,
      get finalSent() {
        return finalSent;
      },
      respond(response) {
        if (finalSent || closed) return;
        const bytes = serializeSipMessage(response);
        state.last = response;
        state.lastBytes = bytes;
        send(bytes, from);
        if (response.status < 200) return;
        finalSent = true;
        const forget = () => servers.delete(key);
        if (invite && response.status < 300) {
          // The 2xx is retransmitted until its ACK (RFC 3261 section 13.3.1.4); retransmitted
          // INVITEs meanwhile get it again (RFC 6026 accepted state).
          const cseq = parseCSeq(request.headers.get('cseq') ?? '');
          const ackKey = `${request.headers.get('call-id')}|${cseq?.seq}`;
          awaitingAck.set(ackKey, state);
          retransmit(bytes, from, t2, state.stop);
          state.stop.push(
            after(clock, 64 * t1, () => {
              servers.delete(key);
              if (awaitingAck.get(ackKey) !== state) return;
              awaitingAck.delete(ackKey);
              stopAll(state.stop);
              tx.onAckTimeout?.();
            }),
          );
          return;
        }
        if (invite) {
          retransmit(bytes, from, t2, state.stop);
          state.stop.push(
            after(clock, 64 * t1, () => {
              stopAll(state.stop);
              forget();
            }),
          );
          return;
        }
        state.stop.push(after(clock, from.transport === 'udp' ? 64 * t1 : 0, forget));
      },
      drop() {
        if (!finalSent && state.last === null) servers.delete(key);
      },
      reply(status, replyOptions) {
        // Every response but 100 carries a To tag (RFC 3261 section 8.2.6.2).
        const toTag = replyOptions?.toTag ?? (status > 100 ? (ownTag ??= newTag()) : undefined);
        const response = responseTo(request, status, { ...replyOptions, ...(toTag ? { toTag } : {}) });
        tx.respond(response);
        return response;
      },
    };
    state.tx = tx;
    servers.set(key, state);
    return state;
  }

  transport.onReceive((bytes, from) => {
    if (closed) return;
    const parsed = parseSipMessage(bytes);
    if (!parsed.ok) {
      const partial = parsed.partial;
      // A request we could read enough of is told what was wrong; anything else is dropped.
      if (partial?.kind === 'request' && partial.method !== 'ACK' && partial.headers.has('via')) {
        const status = parsed.error === 'too_large' ? 513 : 400;
        const reason =
          parsed.error === 'missing_header' ? `Missing ${parsed.detail}` : `Bad Request (${parsed.error})`;
        send(
          serializeSipMessage(
            responseTo(partial, status, { reason: status === 400 ? reason : 'Message Too Large' }),
          ),
          from,
        );
      }
      logger?.debug({ error: parsed.error, transport: from.transport }, 'dropped a malformed SIP message');
      return;
    }
    const message = parsed.message;
    if (message.kind === 'response') clientResponse(message);
    else serverRequest(message, from);
  });

  return {
    timers,
    via,
    onRequest(next) {
      handler = next;
    },
    sendStateless(request, to) {
      send(serializeSipMessage(request), to);
    },
    request(request, to, handlers = {}) {
      if (closed) return Promise.resolve(responseOfOurs(request, 503, 'Closed'));
      let branch = topBranch(request.headers);
      if (!handlers.keepVia || !branch) {
        branch = newBranch();
        request.headers.prepend('via', via(to.transport, branch));
      }
      const invite = request.method === 'INVITE';
      const cseq = parseCSeq(request.headers.get('cseq') ?? '');
      const key = `${branch}|${cseq?.method ?? request.method}`;
      return new Promise<SipResponse>((resolve) => {
        const tx: ClientTx = { invite, resolve, handlers, state: 'trying', stop: [], request, to };
        clients.set(key, tx);
        const bytes = serializeSipMessage(request);
        // Timer B / F first (index 0), then A / E.
        tx.stop.push(
          after(clock, 64 * t1, () => {
            if (tx.state !== 'trying' && tx.state !== 'proceeding') return;
            if (invite && tx.state === 'proceeding') return; // the TU's ring timeout decides
            stopAll(tx.stop);
            clients.delete(key);
            resolve(responseOfOurs(request, 408, 'Request Timeout'));
          }),
        );
        retransmit(bytes, to, invite ? Number.POSITIVE_INFINITY : t2, tx.stop);
        send(bytes, to);
      });
    },
    close() {
      closed = true;
      for (const tx of clients.values()) {
        stopAll(tx.stop);
        if (tx.state === 'trying' || tx.state === 'proceeding')
          tx.resolve(responseOfOurs(tx.request, 503, 'Closed'));
      }
      for (const tx of servers.values()) stopAll(tx.stop);
      clients.clear();
      servers.clear();
      awaitingAck.clear();
    },
  };
}

/** A response made here for a request that got none (timeout, shutdown). */
function responseOfOurs(request: SipRequest, status: number, reason: string): SipResponse {
  return { ...responseTo(request, status), reason };
}

/** The ACK of a non-2xx final response to `invite` (RFC 3261 section 17.1.1.3). */
function ackOfFailure(invite: SipRequest, response: SipResponse): SipRequest {
  const headers = new SipHeaders();
  headers.append('via', invite.headers.get('via') ?? '');
  for (const route of invite.headers.getAll('route')) headers.append('route', route);
  headers.append('max-forwards', '70');
  headers.append('from', invite.headers.get('from') ?? '');
  headers.append('to', response.headers.get('to') ?? '');
  headers.append('call-id', invite.headers.get('call-id') ?? '');
  const cseq = parseCSeq(invite.headers.get('cseq') ?? '');
  headers.append('cseq', `${cseq?.seq ?? 1} ACK`);
  return { kind: 'request', method: 'ACK', uri: invite.uri, headers, body: '' };
}
