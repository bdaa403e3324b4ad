import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import { SipHeaders } from './headers.ts';
import type { SipRequest } from './message.ts';
import { describe as name, openRawSipPeer, sipText, type RawSipPeer } from './testing/raw-peer.ts';
import { createSipEndpoint, type ServerTransaction, type SipEndpoint } from './transactions.ts';
import { openSipTransport, type SipTransport } from './transport.ts';

// The transaction layer on a real UDP socket, its timers on a manual clock: a bare peer sends and
// receives the datagrams, the clock decides when retransmissions are due.

const T1 = 500;
let transport: SipTransport;
let endpoint: SipEndpoint;
let peer: RawSipPeer;
const clock = createManualClock();

async function setUp() {
  transport = await openSipTransport({ address: '127.0.0.1', port: 0, transports: ['udp'] });
  endpoint = createSipEndpoint({ transport, clock, viaHost: `127.0.0.1:${transport.port}` });
  peer = await openRawSipPeer();
}

afterEach(async () => {
  endpoint.close();
  await transport.close();
  await peer.close();
});

function options(method = 'OPTIONS'): SipRequest {
  return {
    kind: 'request',
    method,
    uri: `sip:127.0.0.1:${peer.port}`,
    headers: new SipHeaders([
      ['max-forwards', '70'],
      ['from', '<sip:parley@127.0.0.1>;tag=a'],
      ['to', `<sip:peer@127.0.0.1>`],
      ['call-id', 'tx-test'],
      ['cseq', `1 ${method}`],
    ]),
    body: '',
  };
}

const inviteText = (branch: string, extra: string[] = []) =>
  sipText([
    `INVITE sip:+14155550100@127.0.0.1:${transport.port} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=${branch}`,
    'From: <sip:+14155551234@127.0.0.1>;tag=caller',
    'To: <sip:+14155550100@127.0.0.1>',
    'Call-ID: inv-1',
    'CSeq: 1 INVITE',
    'Max-Forwards: 70',
    ...extra,
  ]);

const responses = (status: number) =>
  peer.received.filter((m) => m.kind === 'response' && m.status === status);
const requests = (method: string) => peer.received.filter((m) => m.kind === 'request' && m.method === method);

describe('SIP client transactions', () => {
  it('retransmits a request over UDP at T1, 2*T1, 4*T1 until a final response', async () => {
    await setUp();
    const to = { transport: 'udp' as const, address: '127.0.0.1', port: peer.port };
    const result = endpoint.request(options(), to);
    await peer.until((r) => r.length === 1, 'the first send');
    clock.advance(T1);
    await peer.until((r) => r.length === 2, 'the retransmission at T1');
    clock.advance(T1);
    expect(peer.received).toHaveLength(2); // the next one is due at 3*T1
    clock.advance(T1);
    await peer.until((r) => r.length === 3, 'the retransmission at 3*T1');
    const sent = peer.received[0];
    if (sent?.kind !== 'request') throw new Error('no request');
    expect(new Set(peer.received.map((m) => m.headers.get('via'))).size).toBe(1);
    peer.send(
      sipText([
        'SIP/2.0 200 OK',
        `Via: ${sent.headers.get('via')}`,
        `From: ${sent.headers.get('from')}`,
        `To: ${sent.headers.get('to')};tag=b`,
        'Call-ID: tx-test',
        'CSeq: 1 OPTIONS',
      ]),
      transport.port,
    );
    expect((await result).status).toBe(200);
    clock.advance(10 * T1);
    expect(peer.received).toHaveLength(3);
  });

  it('gives up with 408 after 64*T1 without an answer', async () => {
    await setUp();
    const result = endpoint.request(options(), { transport: 'udp', address: '127.0.0.1', port: peer.port });
    await peer.until((r) => r.length === 1);
    await clock.tick(64 * T1);
    expect((await result).status).toBe(408);
  });
});

describe('SIP server transactions', () => {
  it('hands an INVITE up once and repeats its response to retransmissions', async () => {
    await setUp();
    const seen: ServerTransaction[] = [];
    endpoint.onRequest((tx) => {
      seen.push(tx);
      tx.reply(486, { toTag: 'us' });
    });
    peer.send(inviteText('z9hG4bK-a'), transport.port);
    await peer.until(() => responses(486).length === 1, '486');
    peer.send(inviteText('z9hG4bK-a'), transport.port);
    await peer.until(() => responses(486).length === 2, 'the 486 repeated');
    expect(seen).toHaveLength(1);
  });

  it('retransmits a 2xx to an INVITE until its ACK, and reports one never acknowledged', async () => {
    await setUp();
    let timedOut = 0;
    endpoint.onRequest((tx) => {
      tx.onAckTimeout = () => (timedOut += 1);
      tx.reply(200, { toTag: 'us' });
    });
    peer.send(inviteText('z9hG4bK-b'), transport.port);
    await peer.until(() => responses(200).length === 1);
    clock.advance(T1);
    await peer.until(() => responses(200).length === 2, 'the 2xx again at T1');
    await clock.tick(64 * T1);
    expect(timedOut).toBe(1);
  });

  it('stops retransmitting the 2xx when the ACK comes', async () => {
    await setUp();
    const acked: SipRequest[] = [];
    endpoint.onRequest((tx) => {
      tx.onAck = (ack) => acked.push(ack);
      tx.reply(200, { toTag: 'us' });
    });
    peer.send(inviteText('z9hG4bK-c'), transport.port);
    await peer.until(() => responses(200).length === 1);
    peer.send(
      sipText([
        `ACK sip:+14155550100@127.0.0.1:${transport.port} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK-ack`,
        'From: <sip:+14155551234@127.0.0.1>;tag=caller',
        'To: <sip:+14155550100@127.0.0.1>;tag=us',
        'Call-ID: inv-1',
        'CSeq: 1 ACK',
        'Max-Forwards: 70',
      ]),
      transport.port,
    );
    await new Promise<void>((resolve) => {
      const check = () => (acked.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    await clock.tick(64 * T1);
    expect(responses(200)).toHaveLength(1);
  });

  it('answers a CANCEL 200 and tells the INVITE; a CANCEL of nothing is 481', async () => {
    await setUp();
    let canceled = 0;
    endpoint.onRequest((tx) => {
      tx.onCancel = () => {
        canceled += 1;
        tx.reply(487, { toTag: 'us' });
      };
      tx.reply(180, { toTag: 'us' });
    });
    peer.send(inviteText('z9hG4bK-d'), transport.port);
    await peer.until(() => responses(180).length === 1);
    const cancel = (branch: string) =>
      sipText([
        `CANCEL sip:+14155550100@127.0.0.1:${transport.port} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=${branch}`,
        'From: <sip:+14155551234@127.0.0.1>;tag=caller',
        'To: <sip:+14155550100@127.0.0.1>',
        'Call-ID: inv-1',
        'CSeq: 1 CANCEL',
        'Max-Forwards: 70',
      ]);
    peer.send(cancel('z9hG4bK-d'), transport.port);
    await peer.until(() => responses(487).length === 1, '487');
    expect(responses(200)).toHaveLength(1);
    expect(canceled).toBe(1);
    peer.send(cancel('z9hG4bK-none'), transport.port);
    await peer.until(() => responses(481).length === 1, '481');
  });

  it('answers a malformed request 400 naming the fault, and drops garbage', async () => {
    await setUp();
    const seen: string[] = [];
    endpoint.onRequest((tx) => seen.push(tx.request.method));
    peer.send(inviteText('z9hG4bK-e').replace('CSeq: 1 INVITE', 'CSeq: 1 BYE'), transport.port);
    await peer.until(() => responses(400).length === 1, '400');
    expect(responses(400)[0]?.kind === 'response' && responses(400)[0]).toMatchObject({
      reason: 'Bad Request (bad_cseq)',
    });
    peer.send(Buffer.from([0, 1, 2, 3, 4, 255]), transport.port);
    peer.send('OPTIONS', transport.port);
    peer.send(inviteText('z9hG4bK-f', [`X-Long: ${'y'.repeat(20_000)}`]), transport.port);
    // An OPTIONS after them is answered: the endpoint lived through them and handed nothing up.
    endpoint.onRequest((tx) => {
      seen.push(tx.request.method);
      tx.reply(200);
    });
    peer.send(
      sipText([
        `OPTIONS sip:127.0.0.1:${transport.port} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK-g`,
        'From: <sip:x@127.0.0.1>;tag=x',
        'To: <sip:y@127.0.0.1>',
        'Call-ID: o-1',
        'CSeq: 7 OPTIONS',
      ]),
      transport.port,
    );
    await peer.until(() => responses(200).length === 1, '200 to OPTIONS');
    expect(seen).toEqual(['OPTIONS']);
    expect(requests('INVITE')).toHaveLength(0);
    expect(peer.received.map(name)).toEqual(['400', '200']);
  });
});
