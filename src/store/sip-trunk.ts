// A SIP number's stored trunk settings (the `sip` JSON column), read once into a typed object for
// every module that uses them: the API's number routes and the SIP carrier's directory.

export type SipTransportSetting = 'udp' | 'tcp' | 'tls';

/** The stored `sip` settings. Passwords are write-only: the API never returns them. */
export type SipTrunk = {
  host: string;
  port?: number | undefined;
  transport?: SipTransportSetting | undefined;
  username?: string | undefined;
  password?: string | undefined;
  uac_register_expires?: number | undefined;
  /** Published fields beyond Parley's `sip` object. */
  uac_enabled?: boolean | undefined;
  outbound_proxy?: string | undefined;
  auth_username?: string | undefined;
  /** The termination URI as the client wrote it. */
  term_uri?: string | undefined;
  /** Who may call in: addresses or CIDR ranges (none: the trunk host's own addresses). */
  allowed_addresses?: string[] | undefined;
  /** Digest credentials a caller not on the allow-list may authenticate with. */
  inbound_username?: string | undefined;
  inbound_password?: string | undefined;
};

const TRANSPORTS: readonly string[] = ['udp', 'tcp', 'tls'];

/** The stored settings, typed; null for none (or anything without a host). */
export function readSipTrunk(sip: Record<string, unknown> | null): SipTrunk | null {
  if (!sip || typeof sip.host !== 'string') return null;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const int = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const transport = text(sip.transport);
  const allowed = Array.isArray(sip.allowed_addresses)
    ? sip.allowed_addresses.filter((a): a is string => typeof a === 'string')
    : undefined;
  return {
    host: sip.host,
    port: int(sip.port),
    transport: transport && TRANSPORTS.includes(transport) ? (transport as SipTransportSetting) : undefined,
    username: text(sip.username),
    password: text(sip.password),
    uac_register_expires: int(sip.uac_register_expires),
    uac_enabled: typeof sip.uac_enabled === 'boolean' ? sip.uac_enabled : undefined,
    outbound_proxy: text(sip.outbound_proxy),
    auth_username: text(sip.auth_username),
    term_uri: text(sip.term_uri),
    allowed_addresses: allowed,
    inbound_username: text(sip.inbound_username),
    inbound_password: text(sip.inbound_password),
  };
}
