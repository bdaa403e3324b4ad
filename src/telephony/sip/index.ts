// The SIP carrier (docs/sip.md).
export { createSipCarrier, type SipCarrier, type SipCarrierOptions } from './carrier.ts';
export type { SipMediaEndpoint, SipMediaPort, SipMediaRemote } from './media-port.ts';
export type { Registrations } from './registration.ts';
export type {
  SipInboundMatch,
  SipNumberDirectory,
  SipRegistrationState,
  SipRegistrationTarget,
  SipTrunkSettings,
} from './trunks.ts';
