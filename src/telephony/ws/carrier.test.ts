import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import {
  WS_BIND_TIMEOUT_MS,
  WS_SESSION_TTL_MS,
  createWsMediaCarrier,
  type WsMediaHandedOver,
  type WsMediaSessionDirectory,
} from './carrier.ts';
import type { WsMediaSocket } from './socket.ts';

// The WS media carrier's sessions on a manual clock: binding, expiry, single use, and what the
// dial of the call gets. The socket is a fake that records what the carrier sends and closes.

function fakeSocket() {
  const sent: (string | Uint8Array)[] = [];
  let onMessage: (data: string | Uint8Array) => void = () => {};
  let onClose: () => void = () => {};
  const socket = {
    sent,
    closed: null as { code: number; reason: string } | null,
    send: (data: string | Uint8Array) => void sent.push(data),
    close(code: number, reason: string) {
      socket.closed = { code, reason };
      onClose();
    },
    onMessage: (handler: (data: string | Uint8Array) => void) => void (onMessage = handler),
    onClose: (handler: () => void) => void (onClose = handler),
    /** The client sends a message. */
    message: (data: string | Uint8Array) => onMessage(data),
    texts: () => sent.filter((m): m is string => typeof m === 'string').map((m) => JSON.parse(m) as object),
  };
  return socket satisfies WsMediaSocket;
}

const setup = () => {
  const clock = createManualClock();
  const carrier = createWsMediaCarrier({ serverName: 'node-a', clock });
  return { clock, carrier };
};

describe('WS media carrier', () => {
  it('answers the dial when the client binds, whichever comes first', async () => {
    const { carrier } = setup();
    const first = carrier.open({ callId: 'call-1', codec: 'pcmu', framing: 'payload' });
    const dial = carrier.dial({ callId: 'call-1', from: '+15555550100', to: '+15555550100' });
    const socket = fakeSocket();
    carrier.connect(socket, first.sid);
    const outcome = await dial;
    expect(outcome.kind).toBe('answered');
    expect(socket.texts()).toEqual([
      { type: 'server_info', 'server-name': 'node-a' },
      {
        type: 'call_info',
        callId: 'call-1',
        codec: 'pcmu',
        framing: 'payload',
        sampleRate: 8000,
        ptimeMs: 20,
      },
    ]);

    const second = carrier.open({ callId: 'call-2', codec: 'l16', framing: 'rtp' });
    carrier.connect(fakeSocket(), second.sid);
    expect((await carrier.dial({ callId: 'call-2', from: '+15555550100', to: '+15555550100' })).kind).toBe(
      'answered',
    );
    expect(carrier.waiting).toBe(0);
  });

  it('a session nobody binds expires: the dial is no-answer and a late bind is refused', async () => {
    const { clock, carrier } = setup();
    const { sid } = carrier.open({ callId: 'call-1', codec: 'pcmu', framing: 'payload' });
    const dial = carrier.dial({ callId: 'call-1', from: '+15555550100', to: '+15555550100' });
    await clock.tick(WS_SESSION_TTL_MS);
    expect(await dial).toEqual({ kind: 'no-answer' });
    const late = fakeSocket();
    carrier.connect(late);
    late.message(JSON.stringify({ type: 'bind', sid }));
    expect(late.closed?.code).toBe(4001);
    expect(late.texts().at(-1)).toEqual({ type: 'error', error: 'unknown or expired session' });
  });

  it('a call still waiting for a slot when its session expires is no-answer when dialed', async () => {
    const { clock, carrier } = setup();
    carrier.open({ callId: 'call-1', codec: 'pcmu', framing: 'payload' });
    await clock.tick(WS_SESSION_TTL_MS);
    expect(carrier.waiting).toBe(0);
    expect(await carrier.dial({ callId: 'call-1', from: '+15555550100', to: '+15555550100' })).toEqual({
      kind: 'no-answer',
    });
  });

  it('a session id binds once; a second socket with it is refused as already bound', () => {
    const { carrier } = setup();
    const { sid } = carrier.open({ callId: 'call-1', codec: 'pcmu', framing: 'payload' });
    carrier.connect(fakeSocket(), sid);
    const again = fakeSocket();
    carrier.connect(again, sid);
    expect(again.closed?.code).toBe(4002);
    expect(again.texts().at(-1)).toEqual({ type: 'error', error: 'this session is already bound' });
  });

  it('a canceled dial frees the session; a socket that never binds is closed after the bind timeout', async () => {
    const { clock, carrier } = setup();
    const { sid } = carrier.open({ callId: 'call-1', codec: 'pcmu', framing: 'payload' });
    const abort = new AbortController();
    const dial = carrier.dial({
      callId: 'call-1',
      from: '+15555550100',
      to: '+15555550100',
      signal: abort.signal,
    });
    abort.abort();
    expect(await dial).toEqual({ kind: 'failed', reason: 'canceled' });
    expect(carrier.waiting).toBe(0);
    const late = fakeSocket();
    carrier.connect(late, sid);
    expect(late.closed?.code).toBe(4001);

    const idle = fakeSocket();
    carrier.connect(idle);
    await clock.tick(WS_BIND_TIMEOUT_MS);
    expect(idle.closed?.code).toBe(4008);
  });

  it('a dial for a call without a session fails with the reason', async () => {
    const { carrier } = setup();
    expect(await carrier.dial({ callId: 'nope', from: '+15555550100', to: '+15555550100' })).toEqual({
      kind: 'failed',
      reason: 'no WebSocket media session for this call',
    });
  });
});

describe('WS media carrier: sessions handed over by another node', () => {
  const handedSetup = () => {
    const clock = createManualClock();
    const handed: WsMediaHandedOver[] = [];
    let lookups = 0;
    const directory: WsMediaSessionDirectory = {
      bySid: async (sid) => (lookups++, handed.find((s) => s.sid === sid) ?? null),
      byCall: async (callId) => (lookups++, handed.find((s) => s.callId === callId) ?? null),
    };
    const carrier = createWsMediaCarrier({ serverName: 'node-b', clock, directory });
    const handOver = (callId: string, ttl = WS_SESSION_TTL_MS) => {
      const session: WsMediaHandedOver = {
        sid: `sid-${callId}`,
        callId,
        codec: 'pcmu',
        framing: 'payload',
        expiresAt: clock.now() + ttl,
      };
      handed.push(session);
      return session;
    };
    return { clock, carrier, handOver, lookups: () => lookups };
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('binds a handed-over session; audio sent while it is looked up is dropped, not refused', async () => {
    const { carrier, handOver } = handedSetup();
    const { sid } = handOver('call-1');
    const socket = fakeSocket();
    carrier.connect(socket, sid);
    socket.message(new Uint8Array(160));
    await settle();
    expect(socket.closed).toBeNull();
    expect(socket.texts().at(-1)).toMatchObject({ type: 'call_info', callId: 'call-1', codec: 'pcmu' });
    const outcome = await carrier.dial({ callId: 'call-1', from: '+15555550100', to: '+15555550100' });
    expect(outcome.kind).toBe('answered');
    // Single use here too.
    const again = fakeSocket();
    carrier.connect(again, sid);
    await settle();
    expect(again.closed?.code).toBe(4002);
  });

  it('a dial that comes first adopts the session and waits for the bind', async () => {
    const { carrier, handOver, lookups } = handedSetup();
    const { sid } = handOver('call-1');
    const dial = carrier.dial({ callId: 'call-1', from: '+15555550100', to: '+15555550100' });
    await settle();
    expect(carrier.waiting).toBe(1);
    const socket = fakeSocket();
    carrier.connect(socket, sid);
    expect((await dial).kind).toBe('answered');
    expect(lookups()).toBe(1); // the bind found the adopted session here
  });

  it('refuses sessions not handed to this node, and says no-answer for an expired one', async () => {
    const { clock, carrier, handOver } = handedSetup();
    const stranger = fakeSocket();
    carrier.connect(stranger, 'sid-of-another-node');
    await settle();
    expect(stranger.closed?.code).toBe(4001);
    expect(
      (await carrier.dial({ callId: 'call-unknown', from: '+15555550100', to: '+15555550100' })).kind,
    ).toBe('failed');

    handOver('call-2', 1_000);
    await clock.tick(1_000);
    expect(await carrier.dial({ callId: 'call-2', from: '+15555550100', to: '+15555550100' })).toEqual({
      kind: 'no-answer',
    });
    const late = fakeSocket();
    carrier.connect(late, 'sid-call-2');
    await settle();
    expect(late.closed?.code).toBe(4001);
  });

  it('a socket closed while its session is looked up is left alone', async () => {
    const { carrier, handOver } = handedSetup();
    const { sid } = handOver('call-1');
    const socket = fakeSocket();
    carrier.connect(socket, sid);
    socket.close(1000, 'gone');
    await settle();
    expect(socket.texts().map((t) => (t as { type: string }).type)).toEqual(['server_info']);
  });
});
