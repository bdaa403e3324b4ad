import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/core/index.ts';
import { storeTargets } from '../../src/store/testing/index.ts';
import { createTestApi, type TestApi } from '../helpers.ts';

// PARLEY_SIP_RATE_LIMIT_PER_SECOND reaches the node's SIP carrier: a source may open that many
// requests a second, in bursts of twice that (a proxy in front of the node, or a load test, sends
// every call from one address). On a manual clock no token comes back while the test runs.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const target = storeTargets()[0];
if (!target) throw new Error('no store target');

/** A bare UDP peer: sends SIP text, keeps the Call-ID of every 200 it gets, in order. */
interface Peer {
  port: number;
  answered: string[];
  send(text: string, port: number): void;
  until(check: () => boolean, what: string): Promise<void>;
}

async function openPeer(): Promise<Peer & { close(): Promise<void> }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const answered: string[] = [];
  socket.on('message', (bytes) => {
    const text = bytes.toString();
    const callId = /^call-id:\s*(\S+)/im.exec(text)?.[1];
    if (text.startsWith('SIP/2.0 200') && callId) answered.push(callId);
  });
  return {
    port: socket.address().port,
    answered,
    send: (text, port) => socket.send(Buffer.from(text), port, '127.0.0.1'),
    async until(check, what) {
      const giveUp = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > giveUp) throw new Error(`never: ${what} (${answered.length} answered)`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

async function node(
  rateLimitPerSecond?: number,
): Promise<{ t: TestApi; peer: Peer; sipPort: number; clock: ManualClock }> {
  const clock = createManualClock();
  const t = await createTestApi(target!, {
    clock,
    sip: rateLimitPerSecond === undefined ? {} : { rateLimitPerSecond },
  });
  const peer = await openPeer();
  cleanups.push(async () => {
    await peer.close();
    await t.close();
  });
  return { t, peer, sipPort: t.sipPort ?? 0, clock };
}

const options = (peer: Peer, sipPort: number, n: number) =>
  [
    `OPTIONS sip:127.0.0.1:${sipPort} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK-rate-${n}`,
    'From: <sip:bench@127.0.0.1>;tag=b',
    'To: <sip:parley@127.0.0.1>',
    `Call-ID: rate-${n}`,
    'CSeq: 1 OPTIONS',
    'Max-Forwards: 70',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');

describe('the SIP per-source limit setting', () => {
  it('takes a burst of twice the configured rate from one source', async () => {
    const { peer, sipPort } = await node(30);
    for (let n = 0; n < 60; n += 1) peer.send(options(peer, sipPort, n), sipPort);
    await peer.until(() => peer.answered.length === 60, 'all 60 answered');
    expect(new Set(peer.answered).size).toBe(60);
  });

  it('drops what is past the default burst of 20 unanswered', async () => {
    const { peer, sipPort, clock } = await node();
    for (let n = 0; n < 30; n += 1) peer.send(options(peer, sipPort, n), sipPort);
    await peer.until(() => peer.answered.length === 20, 'the burst answered');
    // A second later (ten tokens back) one more is answered; it was read after the 30 (loopback
    // keeps the order), so by then every one of them was decided.
    clock.advance(1_000);
    peer.send(options(peer, sipPort, 99), sipPort);
    await peer.until(() => peer.answered.includes('rate-99'), 'the later one answered');
    expect(peer.answered).toEqual([...Array.from({ length: 20 }, (_, n) => `rate-${n}`), 'rate-99']);
  });
});
