import { randomBytes } from 'node:crypto';
import {
  normalizeE164,
  sameSecret,
  systemClock,
  verifyTwilioSignature,
  type Clock,
  type Logger,
} from '../../core/index.ts';
import { createFrameTicker } from '../pacing/index.ts';
import type {
  CallLeg,
  Carrier,
  DialOutcome,
  DialRequest,
  IncomingCall,
  IncomingHandler,
  IncomingRejection,
} from '../types.ts';
import { createTwilioLeg, type BoundTwilioLeg, type TwilioStreamSocket } from './leg.ts';
import { createTwilioRest, type TwilioAccount, type TwilioRest } from './rest.ts';
import { parseStreamMessage } from './stream-protocol.ts';
import { connectStreamTwiml, dialTwiml, hangupTwiml, rejectTwiml, waitTwiml } from './twiml.ts';

// The Twilio carrier `twilio` (docs/twilio.md). Outbound: Calls.json with inline TwiML that
// connects the call's audio to Parley's stream socket, status callbacks mapped to the call's
// outcome. Inbound: the number's Voice URL asks Parley, which runs the inbound path and answers
// TwiML that connects the stream (or rejects). Every request Twilio makes is checked against
// X-Twilio-Signature with the account's auth token, over the URL as PARLEY_PUBLIC_URL gives it;
// the stream, which carries no signature we can check, must come back with the one-time token
// Parley put in its TwiML. A call is known here only on the node that placed or answered it: the
// URLs Parley gives Twilio are this node's.

export const TWILIO_VOICE_PATH = '/v2/twilio/voice';
export const TWILIO_STATUS_PATH = '/v2/twilio/status';
export const TWILIO_STREAM_PATH = '/v2/twilio/stream';
/** Twilio gives a Voice URL 15 s: Parley answers within this, or has the call wait and ask again. */
export const TWILIO_ROUTE_WAIT_MS = 10_000;
/** The pause of a call waiting for its routing before it asks again, in seconds. */
export const TWILIO_ROUTE_PAUSE_S = 2;
/** How long the stream may take to start after Parley connected it (or the socket opened). */
export const TWILIO_STREAM_START_MS = 30_000;
export const TWILIO_RING_TIMEOUT_S = 30;

/** Where the carrier finds accounts and numbers (the store, through the composition root). */
export interface TwilioDirectory {
  /**
   * The account that places call `callId` for `workspaceId` (read from the stored call when not
   * given; a transfer's second call is not stored): the workspace's own, else the server's.
   */
  accountForCall(callId: string, workspaceId?: string): Promise<TwilioAccount | null>;
  /** Account `accountSid`, when Parley holds its auth token. */
  account(accountSid: string): Promise<TwilioAccount | null>;
  /** The workspace holding `to` as a `twilio` number served by account `accountSid`; null: none. */
  workspaceOf(to: string, accountSid: string): Promise<string | null>;
}

export interface TwilioCarrierOptions {
  /** PARLEY_PUBLIC_URL: what Twilio requests (and signs) and where the stream connects. */
  publicUrl: string;
  directory: TwilioDirectory;
  /** Default: Twilio's REST API at https://api.twilio.com (tests: the fake's URL). */
  rest?: TwilioRest;
  clock?: Clock;
  logger?: Logger;
  /** Seconds an outbound call rings (`Timeout`). */
  ringTimeoutS?: number;
  routeWaitMs?: number;
  streamStartMs?: number;
  /** A mark after this many frames (see leg.ts). */
  markEveryFrames?: number;
}

/** A request Twilio made: the path and query it requested, its form and its signature header. */
export interface TwilioRequest {
  url: string;
  params: Record<string, string>;
  signature: string | undefined;
}

/** The HTTP answer: 200 with TwiML (or empty), 400 on a malformed request, 403 on a bad signature. */
export interface TwilioAnswer {
  status: 200 | 400 | 403;
  twiml?: string;
  error?: string;
}

/** What the carrier needs of the stream's WebSocket. */
export interface TwilioSocket extends TwilioStreamSocket {
  onMessage(handler: (text: string) => void): void;
  onClose(handler: () => void): void;
}

export interface TwilioCarrier extends Carrier {
  readonly name: 'twilio';
  onIncoming(handler: IncomingHandler): void;
  /** POST /v2/twilio/voice: a call to one of our numbers (or one waiting for its routing). */
  voice(request: TwilioRequest): Promise<TwilioAnswer>;
  /** POST /v2/twilio/status: a status callback (and the async machine detection's verdict). */
  status(request: TwilioRequest): Promise<TwilioAnswer>;
  /** WS /v2/twilio/stream: Twilio's Media Stream connected. */
  connect(socket: TwilioSocket): void;
  /** Calls this node knows (placing, routing or connected). */
  readonly calls: number;
}

/** Twilio's call statuses in the order a call moves through them; the final ones share a rank. */
const RANK: Record<string, number> = {
  queued: 1,
  initiated: 1,
  ringing: 2,
  'in-progress': 3,
  completed: 4,
  busy: 4,
  'no-answer': 4,
  failed: 4,
  canceled: 4,
};

const CALL_SID = /^CA[0-9a-f]{32}$/i;
const ACCOUNT_SID = /^AC[0-9a-f]{32}$/i;
const isE164 = (number: string) => normalizeE164(number) === number;

type Decision = { kind: 'answer' } | { kind: 'reject'; reason: IncomingRejection };

interface CallEntry {
  callId: string;
  callSid: string | null;
  account: TwilioAccount;
  /** The stream's one-time token ('' once spent). */
  token: string;
  /** The highest status seen (RANK). */
  rank: number;
  bound: BoundTwilioLeg | null;
  /** Outbound: settles the dial. */
  settle: ((outcome: DialOutcome) => void) | null;
  onRinging: (() => void) | undefined;
  /** Outbound: Twilio said it was answered; the stream should follow. */
  answered: boolean;
  /** Settles the leg's `answer()` wait (inbound). */
  legReady: ((leg: CallLeg | Error) => void) | null;
  /** Inbound: the routing's decision, once made. */
  decision: Decision | null;
  decided: Promise<Decision>;
  decide: (decision: Decision) => void;
  /** Inbound: a `<Pause>` answered the call while it waited for its routing. */
  pausedForRouting: boolean;
  /** Twilio's machine detection said who answered. */
  verdict: 'human' | 'machine' | null;
  /** The call ended at Twilio (a final status) before its stream connected. */
  gone: boolean;
  stop: AbortController;
}

const newToken = () => randomBytes(24).toString('base64url');

export function createTwilioCarrier(options: TwilioCarrierOptions): TwilioCarrier {
  const clock = options.clock ?? systemClock;
  const rest = options.rest ?? createTwilioRest();
  const { directory, logger } = options;
  const ticker = createFrameTicker(clock);
  const base = options.publicUrl.replace(/\/+$/, '');
  const streamUrl = `${base.replace(/^http/, 'ws')}${TWILIO_STREAM_PATH}`;
  const routeWaitMs = options.routeWaitMs ?? TWILIO_ROUTE_WAIT_MS;
  const streamStartMs = options.streamStartMs ?? TWILIO_STREAM_START_MS;
  const byCallId = new Map<string, CallEntry>();
  const bySid = new Map<string, CallEntry>();
  let incomingHandler: IncomingHandler | null = null;

  function newEntry(callId: string, account: TwilioAccount): CallEntry {
    let decide: (decision: Decision) => void = () => {};
    const decided = new Promise<Decision>((resolve) => (decide = resolve));
    const entry: CallEntry = {
      callId,
      callSid: null,
      account,
      token: newToken(),
      rank: 0,
      bound: null,
      settle: null,
      onRinging: undefined,
      answered: false,
      legReady: null,
      decision: null,
      decided,
      decide: (decision) => {
        if (entry.decision) return;
        entry.decision = decision;
        decide(decision);
      },
      pausedForRouting: false,
      verdict: null,
      gone: false,
      stop: new AbortController(),
    };
    return entry;
  }

  function forget(entry: CallEntry) {
    entry.stop.abort();
    entry.token = '';
    if (byCallId.get(entry.callId) === entry) byCallId.delete(entry.callId);
    if (entry.callSid && bySid.get(entry.callSid) === entry) bySid.delete(entry.callSid);
  }

  /** Ends a call at Twilio; a failure is logged (the call may have ended there already). */
  async function endAtTwilio(entry: CallEntry, status: 'completed' | 'canceled') {
    if (!entry.callSid) return;
    try {
      await rest.updateCall(entry.account, entry.callSid, { Status: status });
    } catch (err) {
      logger?.warn({ err, call_id: entry.callId, call_sid: entry.callSid }, 'Twilio did not end the call');
    }
  }

  const signedUrl = (url: string) => `${base}${url}`;

  /** Checks the request's signature with `account`'s token. */
  const signedBy = (request: TwilioRequest, account: TwilioAccount) =>
    verifyTwilioSignature(account.authToken, signedUrl(request.url), request.params, request.signature);

  const forbidden: TwilioAnswer = {
    status: 403,
    error: 'the request is not signed by a Twilio account Parley holds',
  };

  function applyStatus(entry: CallEntry, params: Record<string, string>) {
    const status = params.CallStatus ?? '';
    const rank = RANK[status];
    if (rank === undefined || rank <= entry.rank) return; // unknown, repeated or out of order
    entry.rank = rank;
    if (status === 'ringing') {
      entry.onRinging?.();
      return;
    }
    if (status === 'in-progress') {
      entry.answered = true;
      return;
    }
    if (rank < 4) return;
    // A final status.
    if (entry.bound) {
      entry.bound.closed();
      forget(entry);
      return;
    }
    const outcome: DialOutcome =
      status === 'busy'
        ? { kind: 'busy' }
        : status === 'no-answer'
          ? { kind: 'no-answer' }
          : status === 'canceled'
            ? { kind: 'failed', reason: 'canceled' }
            : {
                kind: 'failed',
                reason:
                  status === 'failed'
                    ? `Twilio failed the call${params.ErrorCode ? ` (error ${params.ErrorCode})` : ''}`
                    : 'the call ended before its stream connected',
              };
    entry.gone = true;
    entry.decide({ kind: 'reject', reason: 'unavailable' }); // a Voice URL request waiting ends
    entry.settle?.(outcome);
    entry.legReady?.(new Error(`the call ended at Twilio (${status}) before its stream connected`));
    forget(entry);
  }

  function bindStream(
    socket: TwilioSocket,
    start: Extract<ReturnType<typeof parseStreamMessage>, { event: 'start' }>,
  ) {
    const entry = byCallId.get(start.customParameters.parleyCallId ?? '');
    const token = start.customParameters.parleyToken ?? '';
    const ok =
      entry !== undefined &&
      entry.token !== '' &&
      sameSecret(entry.token, token) &&
      entry.account.accountSid === start.accountSid &&
      (entry.callSid === null || entry.callSid === start.callSid) &&
      !entry.bound;
    if (!ok || !entry) {
      logger?.warn({ call_sid: start.callSid }, 'a Twilio stream without a valid token was refused');
      socket.close(1008, 'refused');
      return null;
    }
    entry.token = ''; // single use
    entry.callSid = start.callSid;
    bySid.set(start.callSid, entry);
    const bound = createTwilioLeg({
      callSid: start.callSid,
      streamSid: start.streamSid,
      socket,
      ticker,
      now: () => clock.now(),
      ...(options.markEveryFrames ? { markEveryFrames: options.markEveryFrames } : {}),
      control: {
        hangup: () => endAtTwilio(entry, 'completed'),
        async transfer(to) {
          if (!entry.callSid) throw new Error('the call has no Twilio call sid');
          await rest.updateCall(entry.account, entry.callSid, { Twiml: dialTwiml(to) });
        },
      },
    });
    entry.bound = bound;
    if (entry.verdict) bound.answeredBy(entry.verdict);
    void bound.leg.ended.then(() => forget(entry));
    entry.settle?.({ kind: 'answered', leg: bound.leg, answeredAt: clock.now() });
    entry.settle = null;
    entry.legReady?.(bound.leg);
    entry.legReady = null;
    return bound;
  }

  function incomingFor(entry: CallEntry, from: string, to: string, workspaceId: string): IncomingCall {
    return {
      from,
      to,
      workspaceId,
      answer(callId) {
        // The caller hung up while the call was routed (a status callback said so).
        if (entry.gone) return Promise.reject(new Error('the caller hung up before the call was answered'));
        entry.callId = callId;
        byCallId.set(callId, entry);
        const leg = new Promise<CallLeg>((resolve, reject) => {
          entry.legReady = (ready) => (ready instanceof Error ? reject(ready) : resolve(ready));
        });
        clock.sleep(streamStartMs, entry.stop.signal).then(
          () => {
            if (entry.bound) return;
            entry.legReady?.(new Error('the Twilio stream did not start in time'));
            forget(entry);
          },
          () => undefined,
        );
        entry.decide({ kind: 'answer' });
        return leg;
      },
      reject(reason) {
        entry.decide({ kind: 'reject', reason });
      },
    };
  }

  /** The decision, or null when the routing is not done within the Voice URL's budget. */
  async function decisionWithin(entry: CallEntry): Promise<Decision | null> {
    if (entry.decision) return entry.decision;
    const wait = new AbortController();
    const timeout = clock.sleep(routeWaitMs, AbortSignal.any([wait.signal, entry.stop.signal])).then(
      () => null,
      () => null,
    );
    const decision = await Promise.race([entry.decided, timeout]);
    wait.abort();
    return decision;
  }

  function answerTwiml(entry: CallEntry, decision: Decision | null, url: string): TwilioAnswer {
    if (!decision) {
      entry.pausedForRouting = true;
      return { status: 200, twiml: waitTwiml(TWILIO_ROUTE_PAUSE_S, signedUrl(url)) };
    }
    if (decision.kind === 'answer')
      return {
        status: 200,
        twiml: connectStreamTwiml(streamUrl, { parleyCallId: entry.callId, parleyToken: entry.token }),
      };
    forget(entry);
    if (entry.pausedForRouting) return { status: 200, twiml: hangupTwiml() };
    return { status: 200, twiml: rejectTwiml(decision.reason === 'busy' ? 'busy' : 'rejected') };
  }

  return {
    name: 'twilio',
    audioRate: 8000,

    get calls() {
      return new Set([...byCallId.values(), ...bySid.values()]).size;
    },

    onIncoming(handler) {
      incomingHandler = handler;
    },

    async dial(request: DialRequest): Promise<DialOutcome> {
      if (request.signal?.aborted) return { kind: 'failed', reason: 'canceled' };
      if (!isE164(request.to) || !isE164(request.from)) return { kind: 'failed', reason: 'invalid_number' };
      const account = await directory.accountForCall(request.callId, request.workspaceId);
      if (!account) return { kind: 'failed', reason: 'no Twilio account is configured for this workspace' };
      if (request.signal?.aborted) return { kind: 'failed', reason: 'canceled' };
      const entry = newEntry(request.callId, account);
      entry.onRinging = request.onRinging
        ? () => {
            const ring = request.onRinging;
            entry.onRinging = undefined;
            ring?.();
          }
        : undefined;
      byCallId.get(request.callId)?.stop.abort();
      byCallId.set(request.callId, entry);
      const ringTimeoutS = options.ringTimeoutS ?? TWILIO_RING_TIMEOUT_S;
      const outcome = new Promise<DialOutcome>((resolve) => {
        entry.settle = (outcome) => {
          entry.settle = null;
          resolve(outcome);
        };
      });
      const cancel = () => {
        if (!entry.settle) return;
        entry.settle({ kind: 'failed', reason: 'canceled' });
        void endAtTwilio(entry, entry.answered ? 'completed' : 'canceled');
        forget(entry);
      };
      request.signal?.addEventListener('abort', cancel, { once: true });
      // Twilio ends an unanswered call after `Timeout`; this guards against callbacks that never come.
      clock.sleep((ringTimeoutS * 1000 + streamStartMs) * 2, entry.stop.signal).then(
        () => {
          if (!entry.settle) return;
          entry.settle({ kind: 'no-answer' });
          void endAtTwilio(entry, entry.answered ? 'completed' : 'canceled');
          forget(entry);
        },
        () => undefined,
      );
      const callback = `${base}${TWILIO_STATUS_PATH}?call=${encodeURIComponent(request.callId)}`;
      try {
        const sid = await rest.createCall(account, {
          To: request.to,
          From: request.from,
          Twiml: connectStreamTwiml(streamUrl, { parleyCallId: request.callId, parleyToken: entry.token }),
          StatusCallback: callback,
          StatusCallbackMethod: 'POST',
          StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          Timeout: String(ringTimeoutS),
          ...(request.machineDetection
            ? {
                MachineDetection: 'Enable',
                AsyncAmd: 'true',
                AsyncAmdStatusCallback: callback,
                AsyncAmdStatusCallbackMethod: 'POST',
              }
            : {}),
        });
        if (entry.callSid && entry.callSid !== sid) throw new Error('Twilio named two call sids');
        entry.callSid = sid;
        // Canceled while Twilio was creating it: end it there now that it has a sid.
        if (entry.settle || entry.bound) bySid.set(sid, entry);
        else void endAtTwilio(entry, 'canceled');
      } catch (err) {
        entry.settle?.({ kind: 'failed', reason: err instanceof Error ? err.message : String(err) });
        forget(entry);
      }
      const result = await outcome;
      request.signal?.removeEventListener('abort', cancel);
      return result;
    },

    async status(request) {
      const { params } = request;
      const query = new URL(request.url, 'http://parley').searchParams;
      const callId = query.get('call');
      const callSid = params.CallSid ?? '';
      const entry = callId !== null ? byCallId.get(callId) : bySid.get(callSid);
      const account =
        entry?.account ??
        (ACCOUNT_SID.test(params.AccountSid ?? '') ? await directory.account(params.AccountSid ?? '') : null);
      if (!account || !signedBy(request, account)) return forbidden;
      // Unknown calls, and callbacks of another call or account, change nothing.
      if (!entry || params.AccountSid !== entry.account.accountSid || !CALL_SID.test(callSid))
        return { status: 200 };
      if (entry.callSid !== null && entry.callSid !== callSid) return { status: 200 };
      if (entry.callSid === null) {
        entry.callSid = callSid;
        bySid.set(callSid, entry);
      }
      if (params.AnsweredBy) {
        // Async machine detection's verdict (docs/twilio.md), kept until the stream binds.
        entry.verdict = /^(machine|fax)/.test(params.AnsweredBy) ? 'machine' : 'human';
        entry.bound?.answeredBy(entry.verdict);
      }
      if (params.CallStatus) applyStatus(entry, params);
      return { status: 200 };
    },

    async voice(request) {
      const { params } = request;
      const accountSid = params.AccountSid ?? '';
      const account = ACCOUNT_SID.test(accountSid) ? await directory.account(accountSid) : null;
      if (!account || !signedBy(request, account)) return forbidden;
      const callSid = params.CallSid ?? '';
      const from = params.From ?? '';
      const to = params.To ?? '';
      if (!CALL_SID.test(callSid)) return { status: 400, error: 'CallSid is missing or not a call sid' };
      let entry = bySid.get(callSid);
      if (entry) {
        // A call waiting for its routing asks again (its <Redirect>).
        if (entry.account.accountSid !== accountSid || entry.settle)
          return { status: 200, twiml: hangupTwiml() };
        return answerTwiml(entry, await decisionWithin(entry), request.url);
      }
      if (!isE164(to) || !isE164(from)) return { status: 200, twiml: rejectTwiml('rejected') };
      const workspaceId = await directory.workspaceOf(to, accountSid);
      const handler = incomingHandler;
      if (!workspaceId || !handler) return { status: 200, twiml: rejectTwiml('rejected') };
      entry = newEntry('', account);
      entry.callSid = callSid;
      entry.rank = RANK[params.CallStatus ?? ''] ?? 0;
      bySid.set(callSid, entry);
      const incoming = incomingFor(entry, from, to, workspaceId);
      const known = entry;
      handler(incoming).catch((err: unknown) => {
        logger?.warn({ err, call_sid: callSid }, 'an incoming Twilio call was not taken');
        known.decide({ kind: 'reject', reason: 'unavailable' });
      });
      return answerTwiml(entry, await decisionWithin(entry), request.url);
    },

    connect(socket) {
      let bound: BoundTwilioLeg | null = null;
      let closed = false;
      const waiting = new AbortController();
      socket.onClose(() => {
        closed = true;
        waiting.abort();
        bound?.closed();
      });
      socket.onMessage((text) => {
        if (closed) return;
        const event = parseStreamMessage(text);
        if (!event) return;
        if (bound) {
          bound.message(event);
          return;
        }
        if (event.event !== 'start') return;
        waiting.abort();
        bound = bindStream(socket, event);
      });
      clock.sleep(streamStartMs, waiting.signal).then(
        () => {
          if (bound || closed) return;
          socket.close(1008, 'no start message came in time');
        },
        () => undefined,
      );
    },
  };
}
