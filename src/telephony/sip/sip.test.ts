import { describe, expect, it } from 'vitest';
import { createDataVoice, createScriptedCallee, runCarrierContract } from '../testing/index.ts';
import { FAR_NUMBERS, openCarrierPair } from './testing/far-carrier.ts';

// The carrier contract on `sip`: the carrier under test places real SIP calls over loopback to a
// second SIP carrier whose incoming calls are answered by the suite's callee, audio both ways as
// RTP (PCMU) through each side's RTP media.

runCarrierContract('sip', async ({ callee, voice }) => {
  const pair = await openCarrierPair({ callee, voice });
  return {
    carrier: pair.near,
    from: '+14155550100',
    numbers: FAR_NUMBERS,
    close: () => pair.close(),
  };
});

describe('closing a SIP carrier', () => {
  it('is safe to ask twice, and sends nothing after', async () => {
    const pair = await openCarrierPair({ callee: () => createScriptedCallee([]), voice: createDataVoice() });
    await Promise.all([pair.near.close(), pair.near.close()]);
    await pair.near.close();
    expect(
      await pair.near.dial({ callId: 'late', from: '+14155550100', to: FAR_NUMBERS.human }),
    ).toMatchObject({
      kind: 'failed',
    });
    await pair.close();
  });
});
