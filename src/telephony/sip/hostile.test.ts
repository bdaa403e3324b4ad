import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../core/index.ts';
import { createRtpMedia } from '../rtp/index.ts';
import { createDataVoice, createScriptedCallee } from '../testing/index.ts';
import { createSipCarrier, type SipCarrier } from './carrier.ts';
import { describe as name, openRawSipPeer, sipText, type RawSipPeer } from './testing/raw-peer.ts';
import { FAR_NUMBERS, openCarrierPair } from './testing/far-carrier.ts';
import { staticDirectory } from './testing/far-carrier.ts';

// Hostile and vanishing peers: a flood from one source is cut off at its burst and never reaches
// the incoming handler; a far end that goes silent without a BYE is ended by the RTP timeout.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a SIP carrier under a flood', () => {
  let carrier: SipCarrier;
  let peer: RawSipPeer;

  it('answers a source at most its burst of requests, the rest dropped unanswered, and never rings', async () => {
    const clock = createManualClock();
    const media = createRtpMedia({
      bindAddress: '127.0.0.1',
      portMin: 38_000,
      portMax: 38_100,
      thread: 'caller',
      clock,
    });
    carrier = await createSipCarrier({
      listenAddress: '127.0.0.1',
      port: 0,
      media,
      clock,
      registrations: false,
      rateLimit: { perSecond: 10, burst: 20 },
      directory: staticDirectory(
        () => ({ host: '192.0.2.1' }),
        () => true,
      ),
    });
    let rang = 0;
    carrier.onIncoming?.(async () => {
      rang += 1;
      return { callId: 'x', status: 'registered' };
    });
    peer = await openRawSipPeer();
    cleanups.push(async () => {
      await carrier.close();
      await media.close();
      await peer.close();
    });
    for (let i = 0; i < 60; i += 1) {
      peer.send(
        sipText([
          `INVITE sip:+14155550100@127.0.0.1:${carrier.port} SIP/2.0`,
          `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK-flood-${i}`,
          'From: <sip:scanner@127.0.0.1>;tag=s',
          'To: <sip:+14155550100@127.0.0.1>',
          `Call-ID: flood-${i}`,
          'CSeq: 1 INVITE',
          'Max-Forwards: 70',
        ]),
        carrier.port,
      );
    }
    // Each admitted INVITE gets 100 and a 403 (the trunk is elsewhere); the others get nothing.
    await peer.until((r) => r.filter((m) => name(m) === '403').length === 20, 'the burst answered');
    // A second later (ten tokens back) an OPTIONS is answered; by then every INVITE of the flood
    // was read (datagrams on loopback keep their order), and still only the burst was answered.
    const options = (n: number) =>
      sipText([
        `OPTIONS sip:127.0.0.1:${carrier.port} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK-options-${n}`,
        'From: <sip:scanner@127.0.0.1>;tag=s',
        'To: <sip:parley@127.0.0.1>',
        `Call-ID: options-${n}`,
        'CSeq: 1 OPTIONS',
      ]);
    clock.advance(1_000);
    peer.send(options(2), carrier.port);
    await peer.until((r) => r.some((m) => name(m) === '200'), 'the later OPTIONS answered');
    const answered = peer.received.filter((m) => name(m) === '200');
    expect(answered.map((m) => m.headers.get('call-id'))).toEqual(['options-2']);
    // (The clock's second also retransmitted each unacknowledged 403: count calls, not messages.)
    const refused = new Set(
      peer.received.filter((m) => name(m) === '403').map((m) => m.headers.get('call-id')),
    );
    expect(refused.size).toBe(20);
    expect(peer.received.filter((m) => name(m) === '100')).toHaveLength(20);
    expect(rang).toBe(0);
  });
});

describe('a SIP call whose far end vanishes', () => {
  it('ends on the RTP timeout without a BYE from the far end', async () => {
    const pair = await openCarrierPair({
      callee: () => createScriptedCallee([], { opening: '' }),
      voice: createDataVoice(),
      nearRtpTimeoutMs: 1_000,
    });
    cleanups.push(() => pair.close());
    const outcome = await pair.near.dial({ callId: 'gone', from: '+14155550100', to: FAR_NUMBERS.human });
    expect(outcome.kind).toBe('answered');
    if (outcome.kind !== 'answered') return;
    await pair.farMedia.close();
    expect(await outcome.leg.ended).toBe('carrier_failure');
  });
});
