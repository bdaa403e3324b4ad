import type { Clock, Logger } from '../../core/index.ts';
import type { IncomingHandler } from '../types.ts';
import type { SipCall } from './call.ts';
import type { SipMediaPort } from './media-port.ts';
import type { SipEndpoint } from './transactions.ts';
import type { SipNumberDirectory } from './trunks.ts';

/** What the carrier's parts share: the endpoint, the calls by Call-ID, settings and ports. */
export interface SipContext {
  endpoint: SipEndpoint;
  media: SipMediaPort;
  directory: SipNumberDirectory;
  clock: Clock;
  logger?: Logger | undefined;
  /** The address written in SDP (PARLEY_SIP_PUBLIC_ADDRESS). */
  publicAddress: string;
  /** `address:port` in our Contact and Via. */
  contactHost: string;
  ringTimeoutMs: number;
  /** Connected calls (and inbound calls ringing) by Call-ID. */
  calls: Map<string, SipCall>;
  incoming: IncomingHandler | null;
}
