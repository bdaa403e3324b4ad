import { setTimeout as delay } from 'node:timers/promises';
import { systemClock, type Clock, type Logger } from '../../core/index.ts';
import type { Carrier, DialOutcome, DialRequest } from '../types.ts';
import type { SipContext } from './context.ts';
import { ALLOW, isInDialog } from './dialog.ts';
import { createNonceBook, receiveInvite } from './inbound.ts';
import type { SipMediaPort } from './media-port.ts';
import { dialSip } from './outbound.ts';
import { createSourceLimiter } from './rate-limit.ts';
import { createRegistrations, type Registrations } from './registration.ts';
import type { SipTimerValues } from './timers.ts';
import { createSipEndpoint, type ServerTransaction } from './transactions.ts';
import { openSipTransport, type SipTransportName } from './transport.ts';
import type { SipNumberDirectory } from './trunks.ts';

// The SIP carrier `sip` (docs/sip.md): a user agent on one UDP and TCP port that places calls
// through each number's trunk, takes calls for our numbers from their trunks, registers where a
// trunk asks, and gives every connected call a leg whose audio is RTP (src/telephony/rtp/).

export interface SipCarrierOptions {
  /** Where to listen (PARLEY_SIP_LISTEN_ADDRESS, PARLEY_SIP_PORT; port 0 picks one). */
  listenAddress: string;
  port: number;
  transports?: readonly SipTransportName[];
  /** The address written in Via, Contact and SDP (PARLEY_SIP_PUBLIC_ADDRESS); default the listen address. */
  publicAddress?: string;
  media: SipMediaPort;
  directory: SipNumberDirectory;
  clock?: Clock;
  logger?: Logger;
  /** How long an outbound call may ring before it is canceled as no-answer (default 60 s). */
  ringTimeoutMs?: number;
  /** Requests opening something, per source address and second (default 10, burst 20). */
  rateLimit?: { perSecond: number; burst: number };
  timers?: SipTimerValues;
  /** Registration refresh and retry (default on). */
  registrations?: boolean;
}

export interface SipCarrier extends Carrier {
  readonly name: 'sip';
  /** The bound SIP port. */
  readonly port: number;
  /** Calls connected or ringing now. */
  readonly active: number;
  readonly registrations: Registrations;
  close(): Promise<void>;
}

const RING_TIMEOUT_MS = 60_000;
/** How long closing waits for the answers to its BYEs. */
const CLOSE_GRACE_MS = 1_000;

export async function createSipCarrier(options: SipCarrierOptions): Promise<SipCarrier> {
  const clock = options.clock ?? systemClock;
  const transport = await openSipTransport({
    address: options.listenAddress,
    port: options.port,
    ...(options.transports ? { transports: options.transports } : {}),
  });
  const publicAddress =
    options.publicAddress ?? (options.listenAddress === '0.0.0.0' ? '127.0.0.1' : options.listenAddress);
  const hostText = publicAddress.includes(':') ? `[${publicAddress}]` : publicAddress;
  const contactHost = `${hostText}:${transport.port}`;
  const endpoint = createSipEndpoint({
    transport,
    clock,
    viaHost: contactHost,
    ...(options.timers ? { timers: options.timers } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const ctx: SipContext = {
    endpoint,
    media: options.media,
    directory: options.directory,
    clock,
    logger: options.logger,
    publicAddress,
    contactHost,
    ringTimeoutMs: options.ringTimeoutMs ?? RING_TIMEOUT_MS,
    calls: new Map(),
    incoming: null,
  };
  const limiter = createSourceLimiter(options.rateLimit ?? { perSecond: 10, burst: 20 });
  const nonces = createNonceBook();
  const registrations = createRegistrations(ctx, { enabled: options.registrations !== false });

  function outsideDialog(tx: ServerTransaction) {
    const { method } = tx.request;
    if (!limiter.take(tx.from.address, clock.now())) {
      // A flood: no answer at all, so it costs the sender as much as it costs us.
      options.logger?.debug({ method }, 'SIP request dropped by the per-source limit');
      tx.drop();
      return;
    }
    switch (method) {
      case 'INVITE':
        tx.reply(100);
        receiveInvite(ctx, tx, nonces).catch((err: unknown) => {
          options.logger?.error({ err }, 'an inbound SIP call failed');
          if (!tx.finalSent) tx.reply(500);
        });
        return;
      case 'OPTIONS':
        tx.reply(200, {
          headers: [
            ['allow', ALLOW],
            ['accept', 'application/sdp'],
          ],
        });
        return;
      case 'BYE':
      case 'NOTIFY':
      case 'INFO':
      case 'UPDATE':
      case 'REFER':
        tx.reply(481);
        return;
      case 'REGISTER':
        // Parley is no registrar.
        tx.reply(403);
        return;
      default:
        tx.reply(501, { headers: [['allow', ALLOW]] });
    }
  }

  endpoint.onRequest((tx) => {
    const callId = tx.request.headers.get('call-id') ?? '';
    const call = ctx.calls.get(callId);
    if (call && isInDialog(tx.request)) {
      call.handle(tx);
      return;
    }
    if (tx.request.method === 'ACK') return;
    if (isInDialog(tx.request)) {
      tx.reply(481);
      return;
    }
    outsideDialog(tx);
  });
  registrations.start();
  let closing: Promise<void> | null = null;

  return {
    name: 'sip',
    audioRate: 8000,
    port: transport.port,
    registrations,
    get active() {
      return ctx.calls.size;
    },
    onIncoming(handler) {
      ctx.incoming = handler;
    },
    dial(request: DialRequest): Promise<DialOutcome> {
      return dialSip(ctx, request);
    },
    async close() {
      if (closing) return closing;
      closing = shut();
      return closing;
    },
  };

  /** Closing, once however often it is asked. */
  async function shut(): Promise<void> {
    await registrations.stop();
    // BYE every call; a far end that does not answer within the grace does not hold us up.
    const byes = Promise.allSettled([...ctx.calls.values()].map((call) => call.leg.hangup()));
    await Promise.race([byes, delay(CLOSE_GRACE_MS, undefined, { ref: false })]);
    endpoint.close();
    await transport.close();
  }
}
