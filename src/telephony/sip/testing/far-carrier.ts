import { createRtpMedia, type RtpMedia } from '../../rtp/index.ts';
import type { CalleeFactory, FarEndVoice } from '../../sim/index.ts';
import { talkAsCallee } from '../../testing/index.ts';
import type { IncomingCall } from '../../types.ts';
import { createSipCarrier, type SipCarrier, type SipCarrierOptions } from '../carrier.ts';
import type { SipNumberDirectory, SipTrunkSettings } from '../trunks.ts';

// Two SIP carriers on loopback for tests: `near` is the one under test and sends its calls to
// `far`'s port as its trunk; `far` plays the called party. What `far` does with a call depends on
// the number dialed (`FarNumbers`), so the near side meets every outcome over real SIP and RTP.

export interface FarNumbers {
  human: string;
  busy: string;
  noAnswer: string;
  /** Rings, then fails (500). */
  failed: string;
  hangsUp: string;
}

export const FAR_NUMBERS: FarNumbers = {
  human: '+14155550123',
  busy: '+14155551111',
  noAnswer: '+14155550000',
  failed: '+14155552222',
  hangsUp: '+14155554444',
};

export interface CarrierPair {
  near: SipCarrier;
  far: SipCarrier;
  /** The far side's RTP media (closing it makes the far end vanish without a BYE). */
  farMedia: RtpMedia;
  /** Calls the far side took, as offered. */
  offered: IncomingCall[];
  close(): Promise<void>;
}

/** A directory whose every number has `trunk`; inbound numbers are `ours` (others 404). */
export function staticDirectory(
  trunk: () => SipTrunkSettings,
  ours: (n: string) => boolean,
): SipNumberDirectory {
  return {
    outbound: async () => trunk(),
    inbound: async (number) => (ours(number) ? [{ workspaceId: 'w', numberId: number, trunk: trunk() }] : []),
    registering: async () => [],
    saveRegistration: async () => undefined,
  };
}

export async function openCarrierPair(options: {
  callee: CalleeFactory;
  voice: FarEndVoice;
  near?: Partial<SipCarrierOptions>;
  /** The near side's RTP timeout (default the media's). */
  nearRtpTimeoutMs?: number;
}): Promise<CarrierPair> {
  const rtp = (min: number, rtpTimeoutMs?: number) =>
    createRtpMedia({
      bindAddress: '127.0.0.1',
      portMin: min,
      portMax: min + 2_000,
      thread: 'caller',
      ...(rtpTimeoutMs ? { rtpTimeoutMs } : {}),
    });
  const nearMedia = rtp(30_000 + Math.floor(Math.random() * 500) * 2, options.nearRtpTimeoutMs);
  const farMedia = rtp(34_000 + Math.floor(Math.random() * 500) * 2);
  const loopback = (port: number): SipTrunkSettings => ({
    host: '127.0.0.1',
    port,
    allowedAddresses: ['127.0.0.1'],
  });
  const farNumbers = new Set(Object.values(FAR_NUMBERS));
  let farPort = 0;
  let nearPort = 0;
  const far = await createSipCarrier({
    listenAddress: '127.0.0.1',
    port: 0,
    media: farMedia,
    directory: staticDirectory(
      () => loopback(nearPort),
      (n) => farNumbers.has(n),
    ),
    registrations: false,
  });
  farPort = far.port;
  const near = await createSipCarrier({
    listenAddress: '127.0.0.1',
    port: 0,
    media: nearMedia,
    directory: staticDirectory(
      () => loopback(farPort),
      () => true,
    ),
    ringTimeoutMs: 1_000,
    registrations: false,
    ...options.near,
  });
  nearPort = near.port;
  const offered: IncomingCall[] = [];
  far.onIncoming?.(async (incoming) => {
    offered.push(incoming);
    if (incoming.to === FAR_NUMBERS.busy) incoming.reject('busy');
    else if (incoming.to === FAR_NUMBERS.failed) incoming.reject('failed');
    else if (incoming.to === FAR_NUMBERS.hangsUp) void incoming.answer('far').then((leg) => leg.hangup());
    else if (incoming.to === FAR_NUMBERS.human) {
      const leg = await incoming.answer('far');
      const callee = await options.callee({ callId: 'far', to: incoming.to, from: incoming.from });
      talkAsCallee(leg, callee, options.voice);
    }
    // noAnswer: it rings until the near side gives up.
    return { callId: 'far', status: 'registered' };
  });
  return {
    near,
    far,
    farMedia,
    offered,
    async close() {
      await near.close();
      await far.close();
      await nearMedia.close();
      await farMedia.close();
    },
  };
}
