import { afterEach, describe, expect, it } from 'vitest';
import {
  createRtpMedia,
  createSipCarrier,
  type IncomingCall,
  type LegEndReason,
  type RtpMedia,
  type SipCarrier,
} from '../../src/telephony/index.ts';
import { hasCommands, runSipp, type SippRun } from './sipp.ts';

// What happens inside a SIP call's dialog, with sipp as the far end of a call the SIP carrier
// places: hold and resume by re-INVITE, OPTIONS and a session refresh by UPDATE answered without
// dropping the call, and a cold transfer by REFER whose NOTIFY says the target answered.

const hasSipp = hasCommands('sipp');
const runHere = hasSipp || Boolean(process.env.CI);
if (!runHere) console.warn('SIP dialog tests skipped: sipp is not installed (apt-get install sip-tester)');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The carrier under test, its trunk pointing at `sipp` (its port once known). */
async function carrierTo(
  sipp: SippRun | null,
  answer?: (incoming: IncomingCall) => void,
): Promise<SipCarrier> {
  const min = 46_000 + Math.floor(Math.random() * 1_000) * 2;
  const media: RtpMedia = createRtpMedia({
    bindAddress: '127.0.0.1',
    portMin: min,
    portMax: min + 200,
    thread: 'caller',
  });
  const trunk = { host: '127.0.0.1', port: sipp?.port ?? 5060 };
  const carrier = await createSipCarrier({
    listenAddress: '127.0.0.1',
    port: 0,
    media,
    registrations: false,
    directory: {
      outbound: async () => trunk,
      inbound: async (number) => (answer ? [{ workspaceId: 'w', numberId: number, trunk }] : []),
      registering: async () => [],
      saveRegistration: async () => undefined,
    },
  });
  cleanups.push(async () => {
    await carrier.close();
    await media.close();
  });
  if (answer)
    carrier.onIncoming?.(async (incoming) => {
      answer(incoming);
      return { callId: 'in', status: 'registered' };
    });
  return carrier;
}

describe.runIf(runHere)('SIP dialogs with sipp', () => {
  it('is put on hold and taken off it by re-INVITE, answers OPTIONS and UPDATE, and ends on BYE', async () => {
    const sipp = await runSipp({ scenario: 'uas-hold.xml', timeoutMs: 30_000 });
    const carrier = await carrierTo(sipp);
    const outcome = await carrier.dial({ callId: 'hold', from: '+14155550100', to: '+14155557002' });
    expect(outcome.kind).toBe('answered');
    if (outcome.kind !== 'answered') return;
    const result = await sipp.done;
    // The scenario checked the directions of our answers (recvonly on hold, sendrecv after).
    expect(result.code, result.out).toBe(0);
    expect(await outcome.leg.ended).toBe('remote_hangup');
  }, 40_000);

  it('transfers cold by REFER; the NOTIFY saying the target answered ends our part with BYE', async () => {
    const sipp = await runSipp({ scenario: 'uas-refer.xml', timeoutMs: 30_000 });
    const carrier = await carrierTo(sipp);
    const outcome = await carrier.dial({ callId: 'refer', from: '+14155550100', to: '+14155557003' });
    expect(outcome.kind).toBe('answered');
    if (outcome.kind !== 'answered') return;
    await outcome.leg.transfer('+14155559000');
    expect(await outcome.leg.ended).toBe('local_hangup');
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
  }, 40_000);

  it('takes a call over TCP: INVITE, 200 and BYE on one connection', async () => {
    let ended: Promise<LegEndReason> | null = null;
    const carrier = await carrierTo(null, (incoming) => {
      ended = incoming.answer('tcp').then((leg) => leg.ended);
    });
    const sipp = await runSipp({
      scenario: 'uac-short.xml',
      target: `127.0.0.1:${carrier.port}`,
      service: '14155550150',
      args: ['-t', 't1'],
      timeoutMs: 20_000,
    });
    const result = await sipp.done;
    expect(result.code, result.out).toBe(0);
    expect(await ended).toBe('remote_hangup');
  }, 30_000);
});
