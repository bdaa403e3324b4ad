import { newId, systemClock, type Clock, type Logger } from '../../core/index.ts';
import { FRAME_MS } from '../../media/index.ts';
import { createCallerPacer, createFrameTicker, type FramePacer } from '../pacing/index.ts';
import type { Carrier, DialOutcome, DialRequest } from '../types.ts';
import { WS_CODEC_INFO, WsMediaEdge, type WsCodec, type WsFraming } from './edge.ts';
import { createWsMediaLeg, type BoundWsMedia } from './leg.ts';
import { WS_CLOSE, type WsMediaSocket } from './socket.ts';

// The WebSocket media carrier `ws` (WIRE.md section 10, docs/ws-media.md): a test call whose far
// end is a WebSocket client. Starting the call opens a single-use session; the client binds it by
// connecting with its id in the URL (legacy flow) or by sending {"type":"bind","sid"} over a
// socket opened on the base URL (connect-then-bind). Dialing the call waits for that bind: bound
// is answered, a session nobody binds before it expires is no-answer. A session another node
// started for this one is read from the directory (the store) when its client binds or its call
// is dialed here.

export interface WsMediaCarrierOptions {
  /** This node's name, sent in `server_info` (PARLEY_NODE_NAME). */
  serverName: string;
  clock?: Clock;
  /** Who sends the frames on the beat; default the carrier's own beat. */
  pacer?: FramePacer;
  /**
   * With a worker pacer, who writes the frames to the socket: `worker` (default), the pacer's
   * thread straight to the socket's descriptor where it can (plain TCP); `main`, the carrier's
   * beat on the main thread through the WebSocket library (PARLEY_WS_MEDIA_SENDER).
   */
  sender?: 'worker' | 'main';
  /** How long a session waits for its client to bind (default 60 s). */
  sessionTtlMs?: number;
  /** How long a socket opened on the base URL may wait before it binds (default 60 s). */
  bindTimeoutMs?: number;
  /** Makes session ids (default a UUID). */
  ids?: () => string;
  logger?: Logger;
  /** Sessions other nodes started for this one; without it, only sessions opened here bind. */
  directory?: WsMediaSessionDirectory;
}

/** A session as another node handed it over. */
export interface WsMediaHandedOver extends WsMediaSessionInit {
  sid: string;
  expiresAt: number;
}

export interface WsMediaSessionDirectory {
  /** The session `sid` if it was started for this node; null otherwise. */
  bySid(sid: string): Promise<WsMediaHandedOver | null>;
  /** The session of call `callId` if it was started for this node; null otherwise. */
  byCall(callId: string): Promise<WsMediaHandedOver | null>;
}

export interface WsMediaSessionInit {
  callId: string;
  codec: WsCodec;
  framing: WsFraming;
}

export interface WsMediaCarrier extends Carrier {
  readonly name: 'ws';
  readonly serverName: string;
  /**
   * Opens the session of a call about to be placed; `sid` and `expiresAt` when it was made
   * elsewhere (it was also handed over to the directory).
   */
  open(init: WsMediaSessionInit & { sid?: string; expiresAt?: number }): { sid: string; expiresAt: number };
  /** How long a session opened now waits for its client. */
  readonly sessionTtlMs: number;
  /** A client connected; with `sid` (legacy flow) it is bound at once. */
  connect(socket: WsMediaSocket, sid?: string): void;
  /** Sessions not bound yet. */
  readonly waiting: number;
}

export const WS_SESSION_TTL_MS = 60_000;
export const WS_BIND_TIMEOUT_MS = 60_000;
/** An expired session is forgotten this long after, if its call was never dialed. */
const STALE_AFTER_MS = 24 * 3_600_000;

interface Session {
  sid: string;
  init: WsMediaSessionInit;
  expiresAt: number;
  bound: BoundWsMedia | null;
  /** The dial waiting for the bind, if it started first. */
  answer: ((outcome: DialOutcome) => void) | null;
  expiry: AbortController;
}

const errorFrame = (error: string) => JSON.stringify({ type: 'error', error });

export function createWsMediaCarrier(options: WsMediaCarrierOptions): WsMediaCarrier {
  const clock = options.clock ?? systemClock;
  const pacer = options.pacer ?? createCallerPacer();
  const ticker = createFrameTicker(clock);
  const ttl = options.sessionTtlMs ?? WS_SESSION_TTL_MS;
  const bindTimeout = options.bindTimeoutMs ?? WS_BIND_TIMEOUT_MS;
  const makeId = options.ids ?? newId;
  const sessions = new Map<string, Session>();
  const byCall = new Map<string, Session>();
  /** Session ids already bound, kept until they would have expired: a second bind is told so. */
  const boundIds = new Map<string, number>();

  /** The session id is spent; the call keeps its session until its dial takes the leg. */
  function spend(session: Session) {
    session.expiry.abort();
    sessions.delete(session.sid);
  }

  function forget(session: Session) {
    spend(session);
    byCall.delete(session.init.callId);
  }

  function sweep() {
    const now = clock.now();
    for (const [sid, until] of boundIds) if (until <= now) boundIds.delete(sid);
    // Expired sessions of calls never dialed (canceled while they waited for a slot).
    for (const [callId, session] of byCall)
      if (!session.bound && session.expiresAt + STALE_AFTER_MS <= now) byCall.delete(callId);
  }

  /** A handed-over session, opened here unless it expired or its call already has one. */
  function adopt(found: WsMediaHandedOver | null): Session | undefined {
    if (!found || found.expiresAt <= clock.now() || byCall.has(found.callId)) return undefined;
    const { sid, expiresAt, ...init } = found;
    return openSession(init, sid, expiresAt);
  }

  /** The session `sid` names here, `bound` when it was bound already; undefined: not here. */
  const here = (sid: string) => sessions.get(sid) ?? (boundIds.has(sid) ? ('bound' as const) : undefined);

  function bind(socket: WsMediaSocket, session: Session | 'bound' | null): BoundWsMedia | null {
    if (session === null || session === 'bound') {
      const reused = session === 'bound';
      socket.send(errorFrame(reused ? 'this session is already bound' : 'unknown or expired session'));
      socket.close(reused ? WS_CLOSE.alreadyBound : WS_CLOSE.unknownSession, 'bind refused');
      return null;
    }
    const { sid, init } = session;
    const bound = createWsMediaLeg({
      sid: `ws_${sid}`,
      socket,
      edge: new WsMediaEdge({ codec: init.codec, framing: init.framing }),
      ticker,
      pacer,
      now: () => clock.now(),
      direct: options.sender !== 'main',
    });
    session.bound = bound;
    spend(session);
    boundIds.set(sid, session.expiresAt);
    void bound.leg.ended.then(() => byCall.delete(init.callId));
    socket.send(
      JSON.stringify({
        type: 'call_info',
        callId: init.callId,
        codec: init.codec,
        framing: init.framing,
        sampleRate: WS_CODEC_INFO[init.codec].sampleRate,
        ptimeMs: FRAME_MS,
      }),
    );
    session.answer?.({ kind: 'answered', leg: bound.leg, answeredAt: clock.now() });
    session.answer = null;
    return bound;
  }

  function openSession(init: WsMediaSessionInit, sid: string, expiresAt: number): Session {
    sweep();
    const session: Session = {
      sid,
      init,
      expiresAt,
      bound: null,
      answer: null,
      expiry: new AbortController(),
    };
    sessions.set(sid, session);
    byCall.set(init.callId, session);
    clock.sleep(Math.max(0, expiresAt - clock.now()), session.expiry.signal).then(
      () => {
        if (session.bound) return;
        // Kept for the call: one still waiting for a slot is no-answer when it is dialed.
        spend(session);
        if (session.answer) {
          byCall.delete(init.callId);
          session.answer({ kind: 'no-answer' });
        }
      },
      () => undefined,
    );
    return session;
  }

  return {
    name: 'ws',
    serverName: options.serverName,
    sessionTtlMs: ttl,

    open({ sid, expiresAt, ...init }) {
      const session = openSession(init, sid ?? makeId(), expiresAt ?? clock.now() + ttl);
      return { sid: session.sid, expiresAt: session.expiresAt };
    },

    connect(socket, sid) {
      socket.send(JSON.stringify({ type: 'server_info', 'server-name': options.serverName }));
      let bound: BoundWsMedia | null = null;
      /** A bind whose session is being looked up: audio meanwhile is dropped. */
      let binding = false;
      let closed = false;
      const waiting = new AbortController();
      const bindTo = (given: string) => {
        const found = here(given);
        if (found !== undefined || !options.directory) {
          bound = bind(socket, found ?? null);
          if (bound) waiting.abort();
          return;
        }
        // Not opened here: perhaps another node handed it over.
        binding = true;
        options.directory.bySid(given).then(
          (handed) => {
            binding = false;
            if (closed) return;
            bound = bind(socket, here(given) ?? adopt(handed) ?? null);
            if (bound) waiting.abort();
          },
          (err: unknown) => {
            binding = false;
            options.logger?.error({ err }, 'looking up a WebSocket media session failed');
            socket.send(errorFrame('the session could not be looked up; try again'));
            socket.close(WS_CLOSE.tryAgain, 'try again');
          },
        );
      };
      socket.onClose(() => {
        closed = true;
        waiting.abort();
        bound?.closed();
      });
      socket.onMessage((data) => {
        if (closed) return;
        if (typeof data !== 'string') {
          if (bound) bound.audio(data);
          else if (!binding) {
            socket.send(errorFrame('audio before the bind'));
            socket.close(WS_CLOSE.notBound, 'not bound');
          }
          return;
        }
        let message: unknown;
        try {
          message = JSON.parse(data);
        } catch {
          return; // Unknown client text frames are ignored (WIRE.md section 10).
        }
        if (typeof message !== 'object' || message === null || !('type' in message)) return;
        if (message.type !== 'bind') return;
        if (bound || binding) {
          socket.send(errorFrame('this socket is already bound'));
          socket.close(WS_CLOSE.alreadyBound, 'bind refused');
          return;
        }
        bindTo('sid' in message && typeof message.sid === 'string' ? message.sid : '');
      });
      if (sid !== undefined) {
        bindTo(sid);
        return;
      }
      clock.sleep(bindTimeout, waiting.signal).then(
        () => {
          if (bound || closed) return;
          socket.send(errorFrame('no bind message came in time'));
          socket.close(WS_CLOSE.bindTimeout, 'bind timeout');
        },
        () => undefined,
      );
    },

    get waiting() {
      return sessions.size;
    },

    async dial(request: DialRequest): Promise<DialOutcome> {
      let session = byCall.get(request.callId);
      if (!session && options.directory) {
        const handed = await options.directory.byCall(request.callId);
        session = byCall.get(request.callId) ?? adopt(handed);
        if (!session && handed) return { kind: 'no-answer' }; // it expired before the call ran
      }
      if (!session) return { kind: 'failed', reason: 'no WebSocket media session for this call' };
      if (session.bound) return { kind: 'answered', leg: session.bound.leg, answeredAt: clock.now() };
      if (!sessions.has(session.sid)) {
        byCall.delete(request.callId);
        return { kind: 'no-answer' };
      }
      request.onRinging?.();
      return new Promise<DialOutcome>((resolve) => {
        session.answer = resolve;
        request.signal?.addEventListener(
          'abort',
          () => {
            if (session.bound) return;
            forget(session);
            resolve({ kind: 'failed', reason: 'canceled' });
          },
          { once: true },
        );
      });
    },
  };
}
